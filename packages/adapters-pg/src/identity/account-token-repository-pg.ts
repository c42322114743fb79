import { AccountToken, type AccountTokenId, type AccountTokenPurpose, AccountTokenRepository, type UserId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

/** The `account_tokens` row (`timestamptz` as `Date`). */
const AccountTokenRow = Schema.Struct({
  ...AccountToken.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.DateTimeUtcFromDate,
  usedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())

const decodeTokens = Schema.decodeUnknownEffect(Schema.Array(AccountTokenRow))

/** Postgres one-time account tokens: digests only, spent by a compare-and-set. */
export const AccountTokenRepositoryPg = Layer.effect(
  AccountTokenRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("AccountTokenRepository.insert")(function*(token: AccountToken) {
      yield* sql`
        INSERT INTO account_tokens (id, user_id, purpose, email, digest, created_at, expires_at, used_at)
        VALUES (${token.id}, ${token.userId}, ${token.purpose}, ${token.email}, ${token.digest}, ${DateTime.toDateUtc(token.createdAt)},
          ${DateTime.toDateUtc(token.expiresAt)}, ${Option.getOrNull(Option.map(token.usedAt, DateTime.toDateUtc))})
      `.pipe(orUnavailable)
    })

    const findByDigest = Effect.fn("AccountTokenRepository.findByDigest")(function*(digest: string) {
      const rows = yield* sql`
        SELECT id, user_id, purpose, email, digest, created_at, expires_at, used_at FROM account_tokens WHERE digest = ${digest}
      `.pipe(Effect.flatMap(decodeTokens), orUnavailable)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => new AccountToken(row))
    })

    const use = Effect.fn("AccountTokenRepository.use")(function*(id: AccountTokenId, at: DateTime.Utc) {
      const used = yield* sql`
        UPDATE account_tokens SET used_at = ${DateTime.toDateUtc(at)} WHERE id = ${id} AND used_at IS NULL RETURNING id
      `.pipe(orUnavailable)
      return used.length > 0
    })

    const useAll = Effect.fn("AccountTokenRepository.useAll")(function*(userId: UserId, purpose: AccountTokenPurpose, at: DateTime.Utc) {
      yield* sql`
        UPDATE account_tokens SET used_at = ${DateTime.toDateUtc(at)}
        WHERE user_id = ${userId} AND purpose = ${purpose} AND used_at IS NULL
      `.pipe(orUnavailable)
    })

    return AccountTokenRepository.of({ insert, findByDigest, use, useAll })
  })
)
