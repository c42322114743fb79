import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { IdGenerator, type Unavailable, Transactor, type UserId } from "../shared/index.ts"
import { memberActor, SessionRejected } from "../access/index.ts"
import { ChangeLog } from "../audit/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { AccountTokens } from "./account-tokens.ts"
import { accountAuditWorkspaceOf } from "./home-workspace.ts"
import { EmailAlreadyVerified, InvalidToken } from "./identity-errors.ts"
import { sameEmail } from "./email.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { User } from "./user.ts"
import { UserRepository } from "./user-repository.ts"

/**
 * Proving an account's address: sign-up mails a 24-hour link; the owner opens it (once), or asks for another. Asking
 * and proving are audited in the account's home workspace.
 */
export class EmailVerification extends Context.Service<EmailVerification, {
  /** Mails a fresh link (earlier ones keep working until used or expired); a verified address is `EmailAlreadyVerified`. */
  readonly resend: (userId: UserId) => Effect.Effect<void, EmailAlreadyVerified | SessionRejected | Unavailable>
  /** Spends the token and marks the address verified; answers the user as now stored. */
  readonly verify: (token: Redacted.Redacted<string>) => Effect.Effect<User, InvalidToken | Unavailable>
}>()("@atrium/domain/EmailVerification") {
  static readonly layer = Layer.effect(
    EmailVerification,
    Effect.gen(function*() {
      const users = yield* UserRepository
      const tokens = yield* AccountTokens
      const repo = yield* AccountTokenRepository
      const tx = yield* Transactor
      const changes = yield* ChangeLog
      const context = yield* Effect.context<ChangeLog | IdGenerator | WorkspaceRepository | MembershipRepository>()

      const resend = Effect.fn("EmailVerification.resend")(function*(userId: UserId) {
        const user = yield* users.findById(userId)
        if (Option.isNone(user)) return yield* new SessionRejected({ code: "invalid_session" })
        if (user.value.emailVerified) return yield* new EmailAlreadyVerified()
        yield* tx.withTransaction(tokens.issue(user.value, "email_verification", memberActor({ userId })))
      })

      const verify = Effect.fn("EmailVerification.verify")(function*(presented: Redacted.Redacted<string>) {
        return yield* tx.withTransaction(Effect.gen(function*() {
          const token = yield* tokens.redeem(presented, "email_verification")
          const found = yield* users.findById(token.userId)
          // A link proves the address it was sent to; an account that has since changed address proves nothing.
          if (Option.isNone(found) || !sameEmail(found.value.email, token.email)) {
            return yield* new InvalidToken({ detail: "The link is invalid, already used or expired; ask for a new one" })
          }
          const now = yield* DateTime.now
          yield* users.markEmailVerified(token.userId, now)
          yield* repo.useAll(token.userId, "email_verification", now)
          const user = found.value
          yield* changes.record({
            workspaceId: yield* accountAuditWorkspaceOf(user),
            actor: memberActor({ userId: user.id }),
            action: "email_verification.completed",
            target: user.id
          })
          return user.emailVerified ? user : new User({ ...user, emailVerifiedAt: Option.some(now) })
        }))
      }, Effect.provide(context))

      return EmailVerification.of({ resend, verify })
    })
  )
}
