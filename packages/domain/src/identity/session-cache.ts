import { Cache, Duration, Effect, Exit, Layer, Option } from "effect"
import { makeRecentValues, type SessionId } from "../shared/index.ts"
import type { Session } from "./session.ts"
import { SessionRepository } from "./session-repository.ts"

/** How long a verified session may be served from memory: a revocation elsewhere takes effect within this. */
export const sessionCacheTtl = Duration.seconds(1)

const capacity = 10_000

/**
 * The `SessionRepository` with its hot read, by access digest, cached for at most `sessionCacheTtl`: what API keys
 * already have. Every change that goes through this process (sign-out, revoke, revoking all, rotation, switching workspace) drops
 * that session's entries at once; other processes see it within the TTL. Misses are never cached.
 */
export const SessionCache = Layer.effect(
  SessionRepository,
  Effect.gen(function*() {
    const repo = yield* SessionRepository
    const byDigest = yield* Cache.makeWith(repo.findByAccessDigest, {
      capacity,
      timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? sessionCacheTtl : Duration.zero
    })
    // The same sessions, read without an effect on the hot path; dropped with the cache entries.
    const recent = makeRecentValues<string, Session>(sessionCacheTtl, capacity)
    // The digests served per session, so a change to the session can drop them all.
    const digestsOf = new Map<SessionId, Set<string>>()

    const remember = <S extends { readonly id: SessionId }>(digest: string) => (found: Option.Option<S>): Option.Option<S> => {
      if (Option.isNone(found)) return found
      if (digestsOf.size >= capacity) digestsOf.clear()
      const digests = digestsOf.get(found.value.id) ?? new Set<string>()
      digests.add(digest)
      digestsOf.set(found.value.id, digests)
      return found
    }

    const forget = (id: SessionId) =>
      Effect.suspend(() => {
        const digests = digestsOf.get(id)
        digestsOf.delete(id)
        if (digests === undefined) return Effect.void
        for (const digest of digests) recent.delete(digest)
        return Effect.forEach(digests, (digest) => Cache.invalidate(byDigest, digest), { discard: true })
      })

    // Dropped before and after the write: a read racing the write cannot leave the old state cached.
    const changing = <A, E>(id: SessionId, write: Effect.Effect<A, E>) => forget(id).pipe(Effect.andThen(write), Effect.ensuring(forget(id)))

    return SessionRepository.of({
      ...repo,
      findByAccessDigest: (digest) =>
        Effect.clockWith((clock) => {
          const nowMillis = clock.currentTimeMillisUnsafe()
          const hit = recent.get(digest, nowMillis)
          if (hit !== undefined) return Effect.succeed(Option.some(hit))
          return Cache.get(byDigest, digest).pipe(Effect.map((found) => {
            if (Option.isSome(found)) recent.set(digest, found.value, nowMillis)
            return remember<Session>(digest)(found)
          }))
        }),
      rotate: (previous, next) => changing(previous.id, repo.rotate(previous, next)),
      setActiveWorkspace: (id, workspaceId) => changing(id, repo.setActiveWorkspace(id, workspaceId)),
      revoke: (id, at, reason) => changing(id, repo.revoke(id, at, reason)),
      // The ids are known only once revoked: each ended session's entries go right after the write.
      revokeAllForUser: (userId, at, reason) =>
        repo.revokeAllForUser(userId, at, reason).pipe(Effect.tap((ended) => Effect.forEach(ended, (session) => forget(session.id), { discard: true })))
    })
  })
)
