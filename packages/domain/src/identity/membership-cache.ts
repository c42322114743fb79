import { Cache, Duration, Effect, Layer, Option } from "effect"
import type { MembershipId, UserId, WorkspaceId } from "../shared/index.ts"
import type { WorkspaceMembership } from "./membership.ts"
import { MembershipRepository } from "./membership-repository.ts"

/** How long a user's workspaces may be served from memory: a change made elsewhere shows within this. */
export const membershipCacheTtl = Duration.seconds(1)

const capacity = 10_000

/**
 * The `MembershipRepository` with the organization read (`listWorkspacesOfUser`) cached per user for at most
 * `membershipCacheTtl`, like verified sessions and workspaces: the app reads it on every start and screen. Every
 * membership change that goes through this process (join, role change, removal) drops that user's entry at once;
 * other processes see it within the TTL. Failures are never cached.
 */
export const MembershipCache = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const repo = yield* MembershipRepository
    const byUser = yield* Cache.makeWith(repo.listWorkspacesOfUser, {
      capacity,
      timeToLive: (exit) => exit._tag === "Success" ? membershipCacheTtl : Duration.zero
    })
    // Whose membership each cached one is, so a removal (which names only the membership) drops the right user.
    const userOf = new Map<MembershipId, UserId>()

    const remember = (joined: ReadonlyArray<WorkspaceMembership>) => {
      if (userOf.size >= capacity) userOf.clear()
      for (const { membership } of joined) userOf.set(membership.id, membership.userId)
      return joined
    }

    const forget = (userId: UserId) => Cache.invalidate(byUser, userId)

    // Dropped before and after the write: a read racing the write cannot leave the old state cached.
    const changing = <A, E>(userId: UserId, write: Effect.Effect<A, E>) => forget(userId).pipe(Effect.andThen(write), Effect.ensuring(forget(userId)))

    // A removal names only the membership: its user is known from a cached read, else read once (removals are rare).
    const ownerOf = (workspaceId: WorkspaceId, id: MembershipId) =>
      Effect.suspend(() => {
        const known = userOf.get(id)
        return known !== undefined
          ? Effect.succeed(Option.some(known))
          : repo.findById(workspaceId, id).pipe(Effect.map(Option.map((membership) => membership.userId)))
      })

    return MembershipRepository.of({
      ...repo,
      listWorkspacesOfUser: (userId) => Cache.get(byUser, userId).pipe(Effect.map(remember)),
      insert: (membership) => changing(membership.userId, repo.insert(membership)),
      update: (membership) => changing(membership.userId, repo.update(membership)),
      delete: (workspaceId, id) =>
        ownerOf(workspaceId, id).pipe(Effect.flatMap(Option.match({
          onNone: () => repo.delete(workspaceId, id),
          onSome: (userId) => changing(userId, repo.delete(workspaceId, id))
        })))
    })
  })
)
