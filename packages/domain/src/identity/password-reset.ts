import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { memberActor } from "../access/index.ts"
import { ChangeLog } from "../audit/index.ts"
import { anonymousActor, IdGenerator, type InvalidInput, Transactor, type Unavailable } from "../shared/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { AccountTokens } from "./account-tokens.ts"
import { accountAuditWorkspaceOf } from "./home-workspace.ts"
import { InvalidToken } from "./identity-errors.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { normalizePassword, PasswordHasher, passwordLengthError } from "./password-hasher.ts"
import { SessionRepository } from "./session-repository.ts"
import { sessionEnded } from "./session-ending.ts"
import { normalizeEmail } from "./email.ts"
import { UserRepository } from "./user-repository.ts"

/**
 * Forgotten passwords: a 1-hour one-time link mailed to the account's address sets a new password and ends every
 * session. Asking (by an anonymous caller) and resetting are audited in the account's home workspace.
 */
export class PasswordReset extends Context.Service<PasswordReset, {
  /**
   * Mails a reset link when an account has this address, and does nothing otherwise: the answer is the same either
   * way, so it tells nobody which addresses have accounts.
   */
  readonly request: (email: string) => Effect.Effect<void, Unavailable>
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
      const context = yield* Effect.context<ChangeLog | IdGenerator | WorkspaceRepository | MembershipRepository>()

      const request = Effect.fn("PasswordReset.request")(function*(email: string) {
        const normalized = normalizeEmail(email)
        if (Option.isNone(normalized)) return
        const found = yield* users.findByEmail(normalized.value)
        if (Option.isNone(found)) return
        // Only an existing account leaves an entry; the caller's answer is the same either way.
        yield* tx.withTransaction(tokens.issue(found.value.user, "password_reset", anonymousActor))
      })

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
          if (user.email === token.email) yield* users.markEmailVerified(user.id, now)
          yield* changes.record({ workspaceId: yield* accountAuditWorkspaceOf(user), actor: memberActor({ userId: user.id }), action: "password_reset.completed", target: user.id })
        }))
      }, Effect.provide(context))

      return PasswordReset.of({ request, confirm })
    })
  )
}
