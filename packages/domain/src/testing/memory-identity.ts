import { DateTime, Effect, Layer, Option } from "effect"
import { comparePositions, Conflict } from "../shared/index.ts"
import { EmailTaken, sameEmail } from "../identity/index.ts"
import { AppearanceRepository } from "../identity/index.ts"
import { InvitationRepository } from "../identity/index.ts"
import { MembershipRepository } from "../identity/index.ts"
import { SessionRepository } from "../identity/index.ts"
import { UserRepository } from "../identity/index.ts"
import { Session } from "../identity/index.ts"
import { AccountToken, AccountTokenRepository, type PasswordResetRequest, User } from "../identity/index.ts"
import { type MemoryState, pageBy, pageOf, withEntry, useStore } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const oldestFirst = <A extends { readonly createdAt: DateTime.Utc; readonly id: string }>(items: Iterable<A>) =>
  Array.from(items).sort(comparePositions)

const withoutEntry = <V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> => {
  const copy = new Map(map)
  copy.delete(key)
  return copy
}


/** In-memory users, unique by email compared without case (`emailKey`). */
export const UserRepositoryMemory = Layer.effect(
  UserRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    return UserRepository.of({
      insert: (user, passwordHash) =>
        modify((s): readonly [boolean, MemoryState] =>
          Array.from(s.users.values()).some((u) => sameEmail(u.user.email, user.email))
            ? [false, s]
            : [true, { ...s, users: withEntry(s.users, user.id, { user, passwordHash }) }]
        ).pipe(Effect.flatMap((inserted) => inserted ? Effect.void : Effect.fail(new EmailTaken()))),
      findByEmail: (email) => read.pipe(Effect.map((s) => Option.fromNullishOr(Array.from(s.users.values()).find((u) => sameEmail(u.user.email, email))))),
      findById: (id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.users.get(id)?.user))),
      markEmailVerified: (id, at) =>
        write((s) => {
          const found = s.users.get(id)
          if (found === undefined || Option.isSome(found.user.emailVerifiedAt)) return s
          return { ...s, users: withEntry(s.users, id, { ...found, user: new User({ ...found.user, emailVerifiedAt: Option.some(at) }) }) }
        }),
      setPasswordHash: (id, passwordHash) =>
        write((s) => {
          const found = s.users.get(id)
          return found === undefined ? s : { ...s, users: withEntry(s.users, id, { ...found, passwordHash }) }
        })
    })
  })
)

/** In-memory memberships, unique per workspace and user. */
export const MembershipRepositoryMemory = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    const inWorkspace = (s: MemoryState, workspaceId: string) => Array.from(s.memberships.values()).filter((m) => m.workspaceId === workspaceId)
    return MembershipRepository.of({
      insert: (membership) =>
        modify((s): readonly [boolean, MemoryState] =>
          inWorkspace(s, membership.workspaceId).some((m) => m.userId === membership.userId)
            ? [false, s]
            : [true, { ...s, memberships: withEntry(s.memberships, membership.id, membership) }]
        ).pipe(Effect.flatMap((inserted) => inserted ? Effect.void : Effect.fail(new Conflict({ detail: "Already a member of the workspace" })))),
      find: (workspaceId, userId) => read.pipe(Effect.map((s) => Option.fromNullishOr(inWorkspace(s, workspaceId).find((m) => m.userId === userId)))),
      findById: (workspaceId, id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.memberships.get(id)).pipe(Option.filter((m) => m.workspaceId === workspaceId)))),
      listByWorkspace: (workspaceId, page) =>
        read.pipe(Effect.map((s) =>
          pageBy(
            inWorkspace(s, workspaceId).flatMap((membership) => {
              const user = s.users.get(membership.userId)?.user
              return user === undefined ? [] : [{ membership, user }]
            }),
            page,
            (member) => member.membership,
            true
          )
        )),
      listByUser: (userId) => read.pipe(Effect.map((s) => oldestFirst(Array.from(s.memberships.values()).filter((m) => m.userId === userId)))),
      // Like the join in Postgres: a membership whose workspace is not stored is left out.
      listWorkspacesOfUser: (userId) =>
        read.pipe(Effect.map((s) =>
          oldestFirst(Array.from(s.memberships.values()).filter((m) => m.userId === userId)).flatMap((membership) => {
            const workspace = s.workspaces.get(membership.workspaceId)
            return workspace === undefined ? [] : [{ workspace, membership }]
          })
        )),
      // Like `UPDATE … WHERE id AND workspace_id`: an update naming another workspace touches nothing.
      update: (membership) =>
        write((s) =>
          s.memberships.get(membership.id)?.workspaceId === membership.workspaceId
            ? { ...s, memberships: withEntry(s.memberships, membership.id, membership) }
            : s
        ),
      delete: (workspaceId, id) =>
        write((s) => s.memberships.get(id)?.workspaceId === workspaceId ? { ...s, memberships: withoutEntry(s.memberships, id) } : s),
      countOwners: (workspaceId) => read.pipe(Effect.map((s) => inWorkspace(s, workspaceId).filter((m) => m.role === "owner").length))
    })
  })
)

/** In-memory sessions, with retired refresh digests kept for reuse detection. */
export const SessionRepositoryMemory = Layer.effect(
  SessionRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    const sessions = (s: MemoryState) => Array.from(s.sessions.values())
    const change = (id: string, f: (session: Session) => Session) =>
      write((s) => {
        const session = s.sessions.get(id)
        return session === undefined ? s : { ...s, sessions: withEntry(s.sessions, id, f(session)) }
      })
    return SessionRepository.of({
      insert: (session) => write((s) => ({ ...s, sessions: withEntry(s.sessions, session.id, session) })),
      findById: (id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.sessions.get(id)))),
      findByAccessDigest: (digest) =>
        read.pipe(Effect.map((s) =>
          Option.orElse(
            Option.fromNullishOr(sessions(s).find((x) => x.accessDigest === digest)),
            () => Option.fromNullishOr(Array.from(s.retiredRefreshDigests.values()).find((r) => r.accessDigest === digest)).pipe(
              Option.flatMap((r) => Option.fromNullishOr(s.sessions.get(r.sessionId)))
            )
          )
        )),
      findByRefreshDigest: (digest) =>
        read.pipe(Effect.map((s) => {
          const current = sessions(s).find((x) => x.refreshDigest === digest)
          if (current !== undefined) return Option.some({ session: current, current: true, retiredAt: Option.none() })
          const retired = s.retiredRefreshDigests.get(digest)
          const session = retired === undefined ? undefined : s.sessions.get(retired.sessionId)
          return session === undefined || retired === undefined
            ? Option.none()
            : Option.some({ session, current: false, retiredAt: Option.some(retired.retiredAt) })
        })),
      rotate: (previous, next) =>
        modify((s): readonly [boolean, MemoryState] => {
          const stored = s.sessions.get(previous.id)
          if (stored === undefined || stored.isRevoked || stored.refreshDigest !== previous.refreshDigest) return [false, s]
          return [true, {
            ...s,
            // Only the rotated columns, as the Postgres update: a stale `next` never moves the active workspace back.
            sessions: withEntry(s.sessions, next.id, new Session({ ...next, activeWorkspaceId: stored.activeWorkspaceId })),
            retiredRefreshDigests: withEntry(s.retiredRefreshDigests, previous.refreshDigest, {
              sessionId: previous.id,
              accessDigest: previous.accessDigest,
              retiredAt: next.lastUsedAt
            })
          }]
        }),
      setActiveWorkspace: (id, workspaceId) => change(id, (session) => new Session({ ...session, activeWorkspaceId: workspaceId })),
      revoke: (id, at, reason) =>
        modify((s): readonly [boolean, MemoryState] => {
          const session = s.sessions.get(id)
          if (session === undefined || session.isRevoked) return [false, s]
          const revoked = new Session({ ...session, revokedAt: Option.some(at), revokeReason: Option.some(reason) })
          return [true, { ...s, sessions: withEntry(s.sessions, id, revoked) }]
        }),
      revokeAllForUser: (userId, at, reason) =>
        modify((s): readonly [ReadonlyArray<Session>, MemoryState] => {
          const ended = sessions(s)
            .filter((x) => x.userId === userId && !x.isRevoked)
            .map((session) => new Session({ ...session, revokedAt: Option.some(at), revokeReason: Option.some(reason) }))
          const next = new Map(s.sessions)
          for (const session of ended) next.set(session.id, session)
          return [ended, { ...s, sessions: next }]
        }),
      // Last-used never moves backwards (concurrent requests touch it out of order).
      touchLastUsed: (id, at) =>
        change(id, (session) => DateTime.isGreaterThan(at, session.lastUsedAt) ? new Session({ ...session, lastUsedAt: at }) : session),
      listByUser: (userId) =>
        read.pipe(Effect.map((s) =>
          sessions(s)
            .filter((x) => x.userId === userId && !x.isRevoked)
            .sort((a, b) => millis(b.lastUsedAt) - millis(a.lastUsedAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        ))
    })
  })
)

/** In-memory invitations. */
export const InvitationRepositoryMemory = Layer.effect(
  InvitationRepository,
  Effect.gen(function*() {
    const { read, write } = yield* useStore
    const all = (s: MemoryState) => Array.from(s.invitations.values())
    return InvitationRepository.of({
      insert: (invitation) => write((s) => ({ ...s, invitations: withEntry(s.invitations, invitation.id, invitation) })),
      findById: (workspaceId, id) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(s.invitations.get(id)).pipe(Option.filter((i) => i.workspaceId === workspaceId)))),
      findByTokenDigest: (digest) => read.pipe(Effect.map((s) => Option.fromNullishOr(all(s).find((i) => i.tokenDigest === digest)))),
      listByWorkspace: (workspaceId, page) =>
        read.pipe(Effect.map((s) => pageOf(all(s).filter((i) => i.workspaceId === workspaceId), page))),
      update: (invitation) =>
        write((s) =>
          s.invitations.get(invitation.id)?.workspaceId === invitation.workspaceId
            ? { ...s, invitations: withEntry(s.invitations, invitation.id, invitation) }
            : s
        )
    })
  })
)

/** In-memory appearance bundles with compare-and-set versions. */
export const AppearanceRepositoryMemory = Layer.effect(
  AppearanceRepository,
  Effect.gen(function*() {
    const { read, modify } = yield* useStore
    const keyOf = (workspaceId: string, userId: string) => `${workspaceId}/${userId}`
    return AppearanceRepository.of({
      get: (workspaceId, userId) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.appearance.get(keyOf(workspaceId, userId))))),
      put: (next, expectedVersion) =>
        modify((s): readonly [boolean, MemoryState] => {
          const key = keyOf(next.workspaceId, next.userId)
          const storedVersion = s.appearance.get(key)?.version ?? 0
          return storedVersion === expectedVersion
            ? [true, { ...s, appearance: withEntry(s.appearance, key, next) }]
            : [false, s]
        })
    })
  })
)

/** In-memory one-time account tokens, spent at most once. */
export const AccountTokenRepositoryMemory = Layer.effect(
  AccountTokenRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    return AccountTokenRepository.of({
      insert: (token) => write((s) => ({ ...s, accountTokens: withEntry(s.accountTokens, token.id, token) })),
      findByDigest: (digest) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(Array.from(s.accountTokens.values()).find((t) => t.digest === digest)))),
      use: (id, at) =>
        modify((s): readonly [boolean, MemoryState] => {
          const token = s.accountTokens.get(id)
          if (token === undefined || Option.isSome(token.usedAt)) return [false, s]
          return [true, { ...s, accountTokens: withEntry(s.accountTokens, id, new AccountToken({ ...token, usedAt: Option.some(at) })) }]
        }),
      useAll: (userId, purpose, at) =>
        write((s) => {
          const next = new Map(s.accountTokens)
          for (const token of s.accountTokens.values()) {
            if (token.userId === userId && token.purpose === purpose && Option.isNone(token.usedAt)) {
              next.set(token.id, new AccountToken({ ...token, usedAt: Option.some(at) }))
            }
          }
          return { ...s, accountTokens: next }
        }),
      requestReset: (request) =>
        write((s) => ({ ...s, resetRequests: withEntry(s.resetRequests, request.id, { request, dueMillis: DateTime.toEpochMillis(request.requestedAt) }) })),
      claimResetRequests: (now, limit, leaseUntil) =>
        modify((s): readonly [ReadonlyArray<PasswordResetRequest>, MemoryState] => {
          const due = Array.from(s.resetRequests.values())
            .filter((entry) => entry.dueMillis <= DateTime.toEpochMillis(now))
            .sort((a, b) => a.dueMillis - b.dueMillis)
            .slice(0, Math.max(0, Math.trunc(limit)))
          const next = new Map(s.resetRequests)
          for (const entry of due) next.set(entry.request.id, { ...entry, dueMillis: DateTime.toEpochMillis(leaseUntil) })
          return [due.map((entry) => entry.request), { ...s, resetRequests: next }]
        }),
      completeResetRequest: (id) =>
        modify((s): readonly [boolean, MemoryState] => {
          if (!s.resetRequests.has(id)) return [false, s]
          const next = new Map(s.resetRequests)
          next.delete(id)
          return [true, { ...s, resetRequests: next }]
        })
    })
  })
)

/** Every identity port in memory. */
export const IdentityPortsMemory = Layer.mergeAll(
  UserRepositoryMemory,
  MembershipRepositoryMemory,
  SessionRepositoryMemory,
  InvitationRepositoryMemory,
  AppearanceRepositoryMemory,
  AccountTokenRepositoryMemory
)
