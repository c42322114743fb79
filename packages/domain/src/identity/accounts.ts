import { Context, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { ChangeLog } from "../audit/index.ts"
import { type Actor, type Conflict, InvalidInput, NotFound, systemActor, type Unavailable } from "../shared/index.ts"
import { type EmailTaken, InvalidCredentials } from "./identity-errors.ts"
import { Forbidden, memberActor, SessionRejected } from "../access/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { SessionId, UserId, type WorkspaceId } from "../shared/index.ts"
import { AccountTokens } from "./account-tokens.ts"
import type { Membership } from "./membership.ts"
import { normalizePassword, PasswordHasher, passwordLengthError } from "./password-hasher.ts"
import { createPersonalWorkspace } from "./personal-workspace.ts"
import { homeWorkspaceOf } from "./home-workspace.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { SessionRepository } from "./session-repository.ts"
import { Transactor } from "../shared/index.ts"
import { UserRepository } from "./user-repository.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { SessionPrincipal } from "../access/index.ts"
import { isSafeTextValue, SecretHasher } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"
import { defaultSessionPolicy, Session, type SessionPolicy, type SessionRevokeReason, type SessionView, toSessionView } from "./session.ts"
import { sessionEnded } from "./session-ending.ts"
import { deriveToken, hasTokenShape, mintRotationSalt, mintToken } from "./session-token.ts"
import { normalizeEmail } from "./email.ts"
import { User, UserName } from "./user.ts"
import type { Workspace } from "../workspaces/index.ts"

/** What signing up needs; email and name are normalised and checked here. */
export interface SignUpInput {
  readonly email: string
  readonly password: Redacted.Redacted<string>
  readonly name: string
  readonly userAgent?: string | undefined
}

/** What signing in needs. */
export interface SignInInput {
  readonly email: string
  readonly password: Redacted.Redacted<string>
  readonly userAgent?: string | undefined
}

/** A session and its two tokens, which exist in plaintext only in this value (the contract's `session`). */
export interface IssuedSession {
  readonly session: Session
  readonly accessToken: Redacted.Redacted<string>
  readonly accessTokenExpiresAt: DateTime.Utc
  readonly refreshToken: Redacted.Redacted<string>
  readonly refreshTokenExpiresAt: DateTime.Utc
}

/** A new account: its user, personal workspace, owner membership and first session. */
export interface SignedUp {
  readonly user: User
  readonly workspace: Workspace
  readonly membership: Membership
  readonly session: IssuedSession
}

/** A successful sign-in. */
export interface SignedIn {
  readonly user: User
  readonly session: IssuedSession
}

// `lastUsedAt` is written at most this often per session, off the request path.
const lastUsedInterval = Duration.minutes(1)
const maxUserAgent = 256
// Who ends a session whose retired refresh token came back: the server, on behalf of whoever holds the real one.
const reuseDetection = systemActor("refresh_token_reuse_detection")

/** Accounts and member sessions: sign-up, sign-in, refresh rotation with reuse detection, authentication, sign-out. */
export class Accounts extends Context.Service<Accounts, {
  /** Creates the user, a personal workspace, its owner membership, a session and the verification mail, in one transaction. */
  readonly signUp: (input: SignUpInput) => Effect.Effect<SignedUp, EmailTaken | InvalidInput | Conflict | Unavailable>
  /** One answer, `InvalidCredentials`, for an unknown email and a wrong password, at the cost of one hash either way. */
  readonly signIn: (input: SignInInput) => Effect.Effect<SignedIn, InvalidCredentials | Conflict | Unavailable>
  /**
   * Rotates the refresh token. The token just rotated away, presented again within the policy's leeway (30 s), answers
   * with the same successor pair; any other rotated-away token revokes the whole session (RFC 9700).
   */
  readonly refresh: (refreshToken: Redacted.Redacted<string>) => Effect.Effect<IssuedSession, SessionRejected | Unavailable>
  /** The live session of an access token, with no membership check (for `/api/auth/*` and switching workspaces). */
  readonly authenticateSession: (accessToken: Redacted.Redacted<string>) => Effect.Effect<Session, SessionRejected | Unavailable>
  /**
   * The member principal of an access token, in the session's active workspace, whose membership is read on every
   * call: a member removed from it gets `Forbidden` (the session stays valid; the client switches workspaces).
   */
  readonly authenticate: (accessToken: Redacted.Redacted<string>) => Effect.Effect<SessionPrincipal, SessionRejected | Forbidden | Unavailable>
  /** The session's user (`GET /api/auth/session`). */
  readonly current: (session: Session) => Effect.Effect<User, SessionRejected | Unavailable>
  /** Ends the session; its tokens stop working at once. */
  readonly signOut: (sessionId: SessionId) => Effect.Effect<void, Unavailable>
  /** The user's live sessions, most recently used first, marking the asking one. */
  readonly listSessions: (session: Session) => Effect.Effect<ReadonlyArray<SessionView>, Unavailable>
  /** Ends one of the user's own sessions; another user's session is not found. */
  readonly revokeSession: (userId: UserId, sessionId: SessionId) => Effect.Effect<void, NotFound | Unavailable>
}>()("@atrium/domain/Accounts") {
  /** Accounts with a session policy (token lifetimes). */
  static readonly layerWith = (policy: SessionPolicy) =>
    Layer.effect(
      Accounts,
      Effect.gen(function*() {
        const users = yield* UserRepository
        const memberships = yield* MembershipRepository
        const sessions = yield* SessionRepository
        const passwords = yield* PasswordHasher
        const secrets = yield* SecretHasher
        const random = yield* SecureRandom
        const ids = yield* IdGenerator
        const tx = yield* Transactor
        const accountTokens = yield* AccountTokens
        const context = yield* Effect.context<ChangeLog | IdGenerator | WorkspaceRepository | MembershipRepository>()
        const lastWritten = new Map<string, number>()

        const rejected = (code: SessionRejected["code"]) => Effect.fail(new SessionRejected({ code }))

        // A sign-in's pair is random; a rotation's pair is derived from the refresh token it replaces and a fresh salt.
        const tokenPair = Effect.fnUntraced(function*(now: DateTime.Utc, from?: { readonly token: Redacted.Redacted<string>; readonly salt: string }) {
          const accessToken = from === undefined
            ? yield* mintToken("access").pipe(Effect.provideService(SecureRandom, random))
            : yield* deriveToken("access", from.token, from.salt).pipe(Effect.provideService(SecretHasher, secrets))
          const refreshToken = from === undefined
            ? yield* mintToken("refresh").pipe(Effect.provideService(SecureRandom, random))
            : yield* deriveToken("refresh", from.token, from.salt).pipe(Effect.provideService(SecretHasher, secrets))
          return {
            accessToken,
            refreshToken,
            accessDigest: yield* secrets.digest(accessToken),
            refreshDigest: yield* secrets.digest(refreshToken),
            accessExpiresAt: DateTime.addDuration(now, policy.accessTtl),
            refreshExpiresAt: DateTime.addDuration(now, policy.refreshTtl)
          }
        })

        const issued = (session: Session, pair: { readonly accessToken: Redacted.Redacted<string>; readonly refreshToken: Redacted.Redacted<string> }): IssuedSession => ({
          session,
          accessToken: pair.accessToken,
          accessTokenExpiresAt: session.accessExpiresAt,
          refreshToken: pair.refreshToken,
          refreshTokenExpiresAt: session.refreshExpiresAt
        })

        // A new session, not yet stored: the caller inserts it inside its transaction.
        const newSession = Effect.fnUntraced(function*(userId: UserId, workspaceId: WorkspaceId, userAgent: string | undefined) {
          const now = yield* DateTime.now
          const pair = yield* tokenPair(now)
          const session = new Session({
            id: SessionId.make(yield* ids.make("ses")),
            userId,
            activeWorkspaceId: workspaceId,
            accessDigest: pair.accessDigest,
            accessExpiresAt: pair.accessExpiresAt,
            refreshDigest: pair.refreshDigest,
            refreshExpiresAt: pair.refreshExpiresAt,
            rotationSalt: Option.none(),
            generation: 0,
            createdAt: now,
            lastUsedAt: now,
            revokedAt: Option.none(),
            revokeReason: Option.none(),
            userAgent: Option.fromNullishOr(userAgent).pipe(
              Option.map((text) => text.slice(0, maxUserAgent)),
              // A header is client text too: one with control characters or a lone surrogate is not kept.
              Option.filter((text) => text.length > 0 && isSafeTextValue(text))
            )
          })
          return issued(session, pair)
        })

        const signUp = Effect.fn("Accounts.signUp")(function*(input: SignUpInput) {
          const email = normalizeEmail(input.email)
          if (Option.isNone(email)) return yield* new InvalidInput({ detail: "email is not a valid address" })
          const name = UserName.makeOption(input.name.trim())
          if (Option.isNone(name)) return yield* new InvalidInput({ detail: "name must be 1–100 characters" })
          const password = normalizePassword(input.password)
          if (Option.isNone(password)) return yield* passwordLengthError()
          // Hash before the transaction: it is slow, and holds no lock while it runs.
          const passwordHash = yield* passwords.hash(password.value)
          const user = new User({
            id: UserId.make(yield* ids.make("usr")),
            email: email.value,
            name: name.value,
            createdAt: yield* DateTime.now,
            emailVerifiedAt: Option.none()
          })
          return yield* tx.withTransaction(
            Effect.gen(function*() {
              yield* users.insert(user, passwordHash)
              const { workspace, membership } = yield* createPersonalWorkspace(user)
              const session = yield* newSession(user.id, workspace.id, input.userAgent)
              yield* sessions.insert(session.session)
              // The verification link is mailed if and only if the account is created.
              yield* accountTokens.issue(user, "email_verification", memberActor({ userId: user.id }))
              const signedUp: SignedUp = { user, workspace, membership, session }
              return signedUp
            })
          ).pipe(Effect.provide(context))
        })

        const signIn = Effect.fn("Accounts.signIn")(function*(input: SignInInput) {
          const email = normalizeEmail(input.email)
          const found = Option.isSome(email) ? yield* users.findByEmail(email.value) : Option.none()
          const password = normalizePassword(input.password)
          // Every path costs one password hash, so response time does not tell which check failed.
          const verified = Option.isSome(found) && Option.isSome(password)
            ? yield* passwords.verify(password.value, found.value.passwordHash)
            : yield* passwords.verifyDummy(input.password)
          if (!verified || Option.isNone(found)) return yield* new InvalidCredentials()
          const user = found.value.user
          return yield* tx.withTransaction(
            Effect.gen(function*() {
              const session = yield* newSession(user.id, yield* homeWorkspaceOf(user), input.userAgent)
              yield* sessions.insert(session.session)
              const signedIn: SignedIn = { user, session }
              return signedIn
            })
          ).pipe(Effect.provide(context))
        })

        // Recorded as a change so areas holding per-session state (push devices) drop it in the same transaction; only
        // the revocation that ends the session records it, so a race of two endings leaves one entry.
        const endSession = Effect.fnUntraced(function*(session: Session, reason: SessionRevokeReason, actor?: Actor) {
          const changes = yield* ChangeLog
          yield* tx.withTransaction(Effect.gen(function*() {
            const ended = yield* sessions.revoke(session.id, yield* DateTime.now, reason)
            if (ended) yield* changes.record(sessionEnded(session, reason, actor))
          }))
        }, Effect.provide(context))

        // The session ends (and commits) before the caller is refused: the refusal must not roll the revocation back.
        const revokeForReuse = (session: Session) =>
          endSession(session, "refresh_token_reused", reuseDetection).pipe(Effect.andThen(rejected("invalid_session")))

        // A token a rotation retired: within the leeway, and while the pair it led to is still current, that same pair
        // again (a phone's two requests at once, a lost response); otherwise it is reuse and ends the session.
        const presentedAgain = Effect.fnUntraced(function*(refreshToken: Redacted.Redacted<string>, digest: string, now: DateTime.Utc) {
          const match = yield* sessions.findByRefreshDigest(digest)
          if (Option.isNone(match)) return yield* rejected("invalid_session")
          const { session, current, retiredAt } = match.value
          if (session.isRevoked || current || session.isLapsedAt(now)) return yield* rejected("invalid_session")
          const withinLeeway = Option.isSome(retiredAt) &&
            DateTime.isLessThanOrEqualTo(now, DateTime.addDuration(retiredAt.value, policy.refreshLeeway))
          if (withinLeeway && Option.isSome(session.rotationSalt)) {
            const pair = yield* tokenPair(now, { token: refreshToken, salt: session.rotationSalt.value })
            if (pair.refreshDigest === session.refreshDigest && pair.accessDigest === session.accessDigest) return issued(session, pair)
          }
          return yield* revokeForReuse(session)
        })

        const refresh = Effect.fn("Accounts.refresh")(function*(refreshToken: Redacted.Redacted<string>) {
          if (!hasTokenShape("refresh", refreshToken)) return yield* rejected("invalid_session")
          const digest = yield* secrets.digest(refreshToken)
          const match = yield* sessions.findByRefreshDigest(digest)
          if (Option.isNone(match)) return yield* rejected("invalid_session")
          const { session, current } = match.value
          if (session.isRevoked) return yield* rejected("invalid_session")
          const now = yield* DateTime.now
          if (!current) return yield* presentedAgain(refreshToken, digest, now)
          if (session.isLapsedAt(now)) return yield* rejected("invalid_session")
          const salt = yield* mintRotationSalt().pipe(Effect.provideService(SecureRandom, random))
          const pair = yield* tokenPair(now, { token: refreshToken, salt })
          const next = new Session({
            ...session,
            accessDigest: pair.accessDigest,
            accessExpiresAt: pair.accessExpiresAt,
            refreshDigest: pair.refreshDigest,
            refreshExpiresAt: pair.refreshExpiresAt,
            rotationSalt: Option.some(salt),
            generation: session.generation + 1,
            lastUsedAt: now
          })
          if (yield* sessions.rotate(session, next)) return issued(next, pair)
          // A concurrent refresh with this very token won the compare-and-set (or the session ended): judge it as retired.
          return yield* presentedAgain(refreshToken, digest, now)
        })

        const touch = Effect.fnUntraced(function*(session: Session, now: DateTime.Utc) {
          const nowMillis = DateTime.toEpochMillis(now)
          const last = lastWritten.get(session.id) ?? DateTime.toEpochMillis(session.lastUsedAt)
          if (nowMillis - last < Duration.toMillis(lastUsedInterval)) return
          lastWritten.set(session.id, nowMillis)
          yield* sessions.touchLastUsed(session.id, now).pipe(Effect.ignore, Effect.forkDetach)
        })

        // Untraced, like API keys: it runs on every session request, where a span costs more than the cached lookup.
        const authenticateSession = Effect.fnUntraced(function*(accessToken: Redacted.Redacted<string>) {
          if (Redacted.value(accessToken).length === 0) return yield* rejected("missing_credentials")
          if (!hasTokenShape("access", accessToken)) return yield* rejected("invalid_session")
          const digest = yield* secrets.digest(accessToken)
          const found = yield* sessions.findByAccessDigest(digest)
          if (Option.isNone(found)) return yield* rejected("invalid_session")
          const session = found.value
          const now = yield* DateTime.now
          if (session.isRevoked || session.isLapsedAt(now)) return yield* rejected("invalid_session")
          // A token a refresh replaced, or one past its time, belongs to a live session: the client refreshes.
          if (digest !== session.accessDigest || session.isAccessExpiredAt(now)) return yield* rejected("session_expired")
          yield* touch(session, now)
          return session
        })

        const authenticate = Effect.fnUntraced(function*(accessToken: Redacted.Redacted<string>) {
          const session = yield* authenticateSession(accessToken)
          const membership = yield* memberships.find(session.activeWorkspaceId, session.userId)
          if (Option.isNone(membership)) {
            return yield* new Forbidden({ detail: "You are no longer a member of the active workspace; switch to another one" })
          }
          return new SessionPrincipal({
            sessionId: session.id,
            userId: session.userId,
            workspaceId: session.activeWorkspaceId,
            role: membership.value.role
          })
        })

        const current = Effect.fn("Accounts.current")(function*(session: Session) {
          const user = yield* users.findById(session.userId)
          if (Option.isNone(user)) return yield* rejected("invalid_session")
          return user.value
        })

        const signOut = Effect.fn("Accounts.signOut")(function*(sessionId: SessionId) {
          const found = yield* sessions.findById(sessionId)
          if (Option.isSome(found) && !found.value.isRevoked) yield* endSession(found.value, "signed_out")
        })

        const listSessions = Effect.fn("Accounts.listSessions")(function*(session: Session) {
          const now = yield* DateTime.now
          const all = yield* sessions.listByUser(session.userId)
          return all.filter((s) => !s.isRevoked && !s.isLapsedAt(now)).map((s) => toSessionView(s, session.id))
        })

        const revokeSession = Effect.fn("Accounts.revokeSession")(function*(userId: UserId, sessionId: SessionId) {
          const found = yield* sessions.findById(sessionId)
          if (Option.isNone(found) || found.value.userId !== userId) return yield* new NotFound({ resource: "session" })
          if (!found.value.isRevoked) yield* endSession(found.value, "revoked")
        })

        return Accounts.of({ signUp, signIn, refresh, authenticateSession, authenticate, current, signOut, listSessions, revokeSession })
      })
    )

  /** Accounts with 15-minute access and 30-day refresh tokens. */
  static readonly layer = Accounts.layerWith(defaultSessionPolicy)
}
