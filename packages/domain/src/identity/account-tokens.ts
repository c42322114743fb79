import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { MailOutbox } from "../mail/index.ts"
import { AccountTokenId, IdGenerator, SecretHasher, SecureRandom, type Unavailable } from "../shared/index.ts"
import { AccountToken, type AccountTokenPurpose, accountTokenTtl } from "./account-token.ts"
import { AccountTokenRepository } from "./account-token-repository.ts"
import { InvalidToken } from "./identity-errors.ts"
import { hasTokenShape, mintToken, type OpaqueTokenKind } from "./session-token.ts"
import type { User } from "./user.ts"

const kindOf: { readonly [P in AccountTokenPurpose]: OpaqueTokenKind } = {
  email_verification: "verification",
  password_reset: "reset"
}

const refused = () => new InvalidToken({ detail: "The link is invalid, already used or expired; ask for a new one" })

/**
 * One-time account tokens and the messages that carry them: the token is minted here, its digest stored, and its
 * plaintext handed only (sealed) to the mail outbox, in the caller's transaction.
 */
export class AccountTokens extends Context.Service<AccountTokens, {
  /** Mints a token for `purpose`, stores its digest and enqueues its message to the user's address; call inside a transaction. */
  readonly issue: (user: User, purpose: AccountTokenPurpose) => Effect.Effect<AccountToken, Unavailable>
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

      const issue = Effect.fn("AccountTokens.issue")(function*(user: User, purpose: AccountTokenPurpose) {
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
        return token
      })

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
