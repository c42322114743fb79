import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { type InvalidInput, Transactor, type Unavailable } from "../shared/index.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { AccountTokens } from "./account-tokens.ts"
import type { InvalidToken } from "./identity-errors.ts"
import { normalizePassword, PasswordHasher, passwordLengthError } from "./password-hasher.ts"
import { SessionRepository } from "./session-repository.ts"
import { normalizeEmail } from "./email.ts"
import { UserRepository } from "./user-repository.ts"

/** Forgotten passwords: a 1-hour one-time link mailed to the account's address sets a new password and ends every session. */
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

      const request = Effect.fn("PasswordReset.request")(function*(email: string) {
        const normalized = normalizeEmail(email)
        if (Option.isNone(normalized)) return
        const found = yield* users.findByEmail(normalized.value)
        if (Option.isNone(found)) return
        yield* tx.withTransaction(tokens.issue(found.value.user, "password_reset"))
      })

      const confirm = Effect.fn("PasswordReset.confirm")(function*(presented: Redacted.Redacted<string>, password: Redacted.Redacted<string>) {
        const normalized = normalizePassword(password)
        if (Option.isNone(normalized)) return yield* passwordLengthError()
        // A dead link is refused before the slow hash, so guessing tokens costs the guesser, not the server.
        yield* tokens.check(presented, "password_reset")
        const passwordHash = yield* passwords.hash(normalized.value)
        yield* tx.withTransaction(Effect.gen(function*() {
          const token = yield* tokens.redeem(presented, "password_reset")
          const now = yield* DateTime.now
          yield* users.setPasswordHash(token.userId, passwordHash)
          yield* sessions.revokeAllForUser(token.userId, now, "password_reset")
          yield* repo.useAll(token.userId, "password_reset", now)
          const user = yield* users.findById(token.userId)
          if (Option.exists(user, (u) => u.email === token.email)) yield* users.markEmailVerified(token.userId, now)
        }))
      })

      return PasswordReset.of({ request, confirm })
    })
  )
}
