import { Context, DateTime, Duration, Effect, Layer, Option, type Redacted } from "effect"
import { memberActor } from "../access/index.ts"
import { ChangeLog } from "../audit/index.ts"
import { anonymousActor, IdGenerator, type InvalidInput, Transactor, type Unavailable, type WorkQueue } from "../shared/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { AccountTokens } from "./account-tokens.ts"
import { accountAuditWorkspaceOf } from "./home-workspace.ts"
import { InvalidToken } from "./identity-errors.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { normalizePassword, PasswordHasher, passwordLengthError } from "./password-hasher.ts"
import { SessionRepository } from "./session-repository.ts"
import { sessionEnded } from "./session-ending.ts"
import { normalizeEmail, sameEmail } from "./email.ts"
import { PasswordResetRequest } from "./password-reset-request.ts"
import { UserRepository } from "./user-repository.ts"

// Longer than handling one request takes, so only a crashed worker's claims come back.
const requestLease = Duration.minutes(2)

/**
 * Forgotten passwords: a 1-hour one-time link mailed to the account's address sets a new password and ends every
 * session. Asking (by an anonymous caller) and resetting are audited in the account's home workspace. Asking only
 * records the request; a worker (`requestQueue`) looks the account up, so known and unknown addresses take alike.
 */
export class PasswordReset extends Context.Service<PasswordReset, {
  /**
   * Records the request (one insert for any well-formed address) for `requestQueue`, which mails a reset link when an
   * account has this address and does nothing otherwise: answer and timing are the same either way, so they tell
   * nobody which addresses have accounts.
   */
  readonly request: (email: string) => Effect.Effect<void, Unavailable>
  /**
   * Handles one recorded request in one transaction: the request is removed and, when an account has the address, its
   * token, audit entry and message are written; a request handled already changes nothing.
   */
  readonly handle: (request: PasswordResetRequest) => Effect.Effect<void, Unavailable>
  /** The recorded requests as a leased work queue for `runWorker`. */
  readonly requestQueue: WorkQueue<PasswordResetRequest>
  /**
   * Spends the token, stores the new password's hash, revokes every session of the account, voids its other reset
   * links and, since the link reached the address, marks the address verified.
   */
  readonly confirm: (token: Redacted.Redacted<string>, password: Redacted.Redacted<string>) => Effect.Effect<void, InvalidToken | InvalidInput | Unavailable>
}>()("@atrium/domain/PasswordReset") {
  static readonly layer = Layer.effect(
    PasswordReset,
    Effect.gen(function*() {
      const users = yield* UserRepository
      const sessions = yield* SessionRepository
      const repo = yield* AccountTokenRepository
      const tokens = yield* AccountTokens
      const passwords = yield* PasswordHasher
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const ids = yield* IdGenerator
      const context = yield* Effect.context<ChangeLog | IdGenerator | WorkspaceRepository | MembershipRepository>()

      const request = Effect.fn("PasswordReset.request")(function*(email: string) {
        const normalized = normalizeEmail(email)
        if (Option.isNone(normalized)) return
        const id = yield* ids.make("prr")
        yield* repo.requestReset(new PasswordResetRequest({ id, email: normalized.value, requestedAt: yield* DateTime.now }))
      })

      const handle = Effect.fn("PasswordReset.handle")(function*(pending: PasswordResetRequest) {
        yield* tx.withTransaction(Effect.gen(function*() {
          if (!(yield* repo.completeResetRequest(pending.id))) return
          const found = yield* users.findByEmail(pending.email)
          // Only an existing account leaves an entry (token, audit, message); an unknown address leaves nothing.
          if (Option.isSome(found)) yield* tokens.issue(found.value.user, "password_reset", anonymousActor)
        }))
      })

      const requestQueue: WorkQueue<PasswordResetRequest> = {
        name: "password-reset",
        claim: Effect.fn("PasswordReset.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          return yield* repo.claimResetRequests(now, limit, DateTime.addDuration(now, requestLease))
        }),
        step: handle
      }

      const confirm = Effect.fn("PasswordReset.confirm")(function*(presented: Redacted.Redacted<string>, password: Redacted.Redacted<string>) {
        const normalized = normalizePassword(password)
        if (Option.isNone(normalized)) return yield* passwordLengthError()
        // A dead link is refused before the slow hash, so guessing tokens costs the guesser, not the server.
        yield* tokens.check(presented, "password_reset")
        const passwordHash = yield* passwords.hash(normalized.value)
        yield* tx.withTransaction(Effect.gen(function*() {
          const token = yield* tokens.redeem(presented, "password_reset")
          const found = yield* users.findById(token.userId)
          // An account deleted since the link was mailed has nothing left to reset or audit.
          if (Option.isNone(found)) return yield* new InvalidToken({ detail: "The link is invalid, already used or expired; ask for a new one" })
          const user = found.value
          const now = yield* DateTime.now
          yield* users.setPasswordHash(user.id, passwordHash)
          // Each ended session is a recorded change, so its push devices go with it (a taken-over account's intruder's too).
          const ended = yield* sessions.revokeAllForUser(user.id, now, "password_reset")
          yield* changes.recordAll(ended.map((session) => sessionEnded(session, "password_reset")))
          yield* repo.useAll(user.id, "password_reset", now)
          if (sameEmail(user.email, token.email)) yield* users.markEmailVerified(user.id, now)
          yield* changes.record({ workspaceId: yield* accountAuditWorkspaceOf(user), actor: memberActor({ userId: user.id }), action: "password_reset.completed", target: user.id })
        }))
      }, Effect.provide(context))

      return PasswordReset.of({ request, handle, requestQueue, confirm })
    })
  )
}
