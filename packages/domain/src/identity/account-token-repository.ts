import { Context, type DateTime, type Effect, type Option } from "effect"
import type { AccountTokenId, Unavailable, UserId } from "../shared/index.ts"
import type { AccountToken, AccountTokenPurpose } from "./account-token.ts"

/** Port: one-time account tokens (email verification, password reset), found only by digest. */
export class AccountTokenRepository extends Context.Service<AccountTokenRepository, {
  readonly insert: (token: AccountToken) => Effect.Effect<void, Unavailable>
  readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<AccountToken>, Unavailable>
  /** Spends the token if it is still unspent; `false` when another use came first, so a token works once. */
  readonly use: (id: AccountTokenId, at: DateTime.Utc) => Effect.Effect<boolean, Unavailable>
  /** Spends every unspent token of the user for `purpose` (a reset or a verification makes its siblings void). */
  readonly useAll: (userId: UserId, purpose: AccountTokenPurpose, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/AccountTokenRepository") {}
