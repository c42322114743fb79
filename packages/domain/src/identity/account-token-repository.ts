import { Context, type DateTime, type Effect, type Option } from "effect"
import type { AccountTokenId, Unavailable, UserId } from "../shared/index.ts"
import type { AccountToken, AccountTokenPurpose } from "./account-token.ts"
import type { PasswordResetRequest } from "./password-reset-request.ts"

/** Port: one-time account tokens (email verification, password reset), found only by digest, and the reset requests waiting for one. */
export class AccountTokenRepository extends Context.Service<AccountTokenRepository, {
  readonly insert: (token: AccountToken) => Effect.Effect<void, Unavailable>
  readonly findByDigest: (digest: string) => Effect.Effect<Option.Option<AccountToken>, Unavailable>
  /** Spends the token if it is still unspent; `false` when another use came first, so a token works once. */
  readonly use: (id: AccountTokenId, at: DateTime.Utc) => Effect.Effect<boolean, Unavailable>
  /** Spends every unspent token of the user for `purpose` (a reset or a verification makes its siblings void). */
  readonly useAll: (userId: UserId, purpose: AccountTokenPurpose, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
  /** Records a reset request, due at once: one insert, whatever the address. */
  readonly requestReset: (request: PasswordResetRequest) => Effect.Effect<void, Unavailable>
  /** Leases up to `limit` due reset requests until `leaseUntil` (Postgres: `FOR UPDATE SKIP LOCKED`). */
  readonly claimResetRequests: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<PasswordResetRequest>, Unavailable>
  /** Removes a handled request; `false` when it was gone already (another worker handled it), so it is handled once. */
  readonly completeResetRequest: (id: string) => Effect.Effect<boolean, Unavailable>
}>()("@atrium/domain/AccountTokenRepository") {}
