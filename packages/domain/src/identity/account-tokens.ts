import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { ChangeLog } from "../audit/index.ts"
import { MailOutbox } from "../mail/index.ts"
import { AccountTokenId, type Actor, IdGenerator, SecretHasher, SecureRandom, type Unavailable } from "../shared/index.ts"
import { WorkspaceRepository } from "../workspaces/index.ts"
import { AccountToken, type AccountTokenPurpose, accountTokenTtl } from "./account-token.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { accountAuditWorkspaceOf } from "./home-workspace.ts"
import { InvalidToken } from "./identity-errors.ts"
import { MembershipRepository } from "./membership-repository.ts"
import { hasTokenShape, mintToken, type OpaqueTokenKind } from "./session-token.ts"
import type { User } from "./user.ts"

const kindOf: { readonly [P in AccountTokenPurpose]: OpaqueTokenKind } = {
  email_verification: "verification",
  password_reset: "reset"
}

const refused = () => new InvalidToken({ detail: "The link is invalid, already used or expired; ask for a new one" })

/**
 * One-time account tokens and the messages that carry them: the token is minted here, its digest stored, its
 * plaintext handed only (sealed) to the mail outbox, and the request audited in the account's home workspace (never
 * the token), all in the caller's transaction.
 */
export class AccountTokens extends Context.Service<AccountTokens, {
  /**
   * Mints a token for `purpose`, stores its digest, enqueues its message to the user's address and records
   * `<purpose>.requested` by `actor`; call inside a transaction.
   */
  readonly issue: (user: User, purpose: AccountTokenPurpose, actor: Actor) => Effect.Effect<AccountToken, Unavailable>
  /** The stored token of a presented one if it is usable now, without spending it (a cheap pre-check). */
  readonly check: (presented: Redacted.Redacted<string>, purpose: AccountTokenPurpose) => Effect.Effect<AccountToken, InvalidToken | Unavailable>
  /** Spends a usable token; unknown, spent, expired or of another purpose is `InvalidToken`. Call inside a transaction. */
  readonly redeem: (presented: Redacted.Redacted<string>, purpose: AccountTokenPurpose) => Effect.Effect<AccountToken, InvalidToken | Unavailable>
}>()("@atrium/domain/AccountTokens") {
  static readonly layer = Layer.effect(
    AccountTokens,
    Effect.gen(function*() {
      const repo = yield* AccountTokenRepository
      const outbox = yield* MailOutbox
      const hasher = yield* SecretHasher
      const random = yield* SecureRandom
      const ids = yield* IdGenerator
      const changes = yield* ChangeLog
      const context = yield* Effect.context<ChangeLog | IdGenerator | WorkspaceRepository | MembershipRepository>()

      const issue = Effect.fn("AccountTokens.issue")(function*(user: User, purpose: AccountTokenPurpose, actor: Actor) {
        const plaintext = yield* mintToken(kindOf[purpose]).pipe(Effect.provideService(SecureRandom, random))
        const now = yield* DateTime.now
        const token = new AccountToken({
          id: AccountTokenId.make(yield* ids.make("tok")),
          userId: user.id,
          purpose,
          email: user.email,
          digest: yield* hasher.digest(plaintext),
          createdAt: now,
          expiresAt: DateTime.addDuration(now, accountTokenTtl[purpose]),
          usedAt: Option.none()
        })
        yield* repo.insert(token)
        // The token's id names the change, so this change never yields a second message.
        yield* outbox.enqueue({
          dedupeKey: `${purpose}:${token.id}`,
          to: user.email,
          content: { template: purpose, name: user.name },
          token: plaintext,
          linkExpiresAt: token.expiresAt
        })
        // The account is the target: the entry says a link was asked for, and carries nothing that opens it.
        yield* changes.record({ workspaceId: yield* accountAuditWorkspaceOf(user), actor, action: `${purpose}.requested`, target: user.id })
        return token
      }, Effect.provide(context))

      const check = Effect.fn("AccountTokens.check")(function*(presented: Redacted.Redacted<string>, purpose: AccountTokenPurpose) {
        if (!hasTokenShape(kindOf[purpose], presented)) return yield* refused()
        const found = yield* repo.findByDigest(yield* hasher.digest(presented))
        const now = yield* DateTime.now
        if (Option.isNone(found) || found.value.purpose !== purpose || !found.value.isUsableAt(now)) return yield* refused()
        return found.value
      })

      const redeem = Effect.fn("AccountTokens.redeem")(function*(presented: Redacted.Redacted<string>, purpose: AccountTokenPurpose) {
        const token = yield* check(presented, purpose)
        // Compare-and-set: of two concurrent uses, one wins.
        if (!(yield* repo.use(token.id, yield* DateTime.now))) return yield* refused()
        return token
      })

      return AccountTokens.of({ issue, check, redeem })
    })
  )
}
