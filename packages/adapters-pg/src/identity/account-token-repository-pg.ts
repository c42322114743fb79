import { AccountToken, type AccountTokenId, type AccountTokenPurpose, AccountTokenRepository, PasswordResetRequest, type UserId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"

/** The `account_tokens` row (`timestamptz` as `Date`). */
const AccountTokenRow = Schema.Struct({
  ...AccountToken.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.DateTimeUtcFromDate,
  usedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())

const decodeTokens = Schema.decodeUnknownEffect(Schema.Array(AccountTokenRow))

const decodeRequests = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ ...PasswordResetRequest.fields, requestedAt: Schema.DateTimeUtcFromDate }).pipe(snakeCaseColumns()))
)

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

    const requestReset = Effect.fn("AccountTokenRepository.requestReset")(function*(request: PasswordResetRequest) {
      const at = DateTime.toDateUtc(request.requestedAt)
      // Announced to idle workers of every process when the request commits.
      yield* sql`
        WITH inserted AS (INSERT INTO password_reset_requests (id, email, requested_at, due_at) VALUES (${request.id}, ${request.email}, ${at}, ${at}))
        SELECT pg_notify(${workChannel}, 'password_reset_requests')
      `.pipe(orUnavailable)
    })

    const claimResetRequests = Effect.fn("AccountTokenRepository.claimResetRequests")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      const rows = yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id FROM password_reset_requests WHERE due_at <= ${DateTime.toDateUtc(now)}
          ORDER BY due_at, id LIMIT ${size} FOR UPDATE SKIP LOCKED
        )
        UPDATE password_reset_requests r SET due_at = ${DateTime.toDateUtc(leaseUntil)}
        FROM due WHERE r.id = due.id
        RETURNING r.id, r.email, r.requested_at
      `.pipe(Effect.flatMap(decodeRequests), orUnavailable)
      return rows.map((row) => new PasswordResetRequest(row))
    })

    const completeResetRequest = Effect.fn("AccountTokenRepository.completeResetRequest")(function*(id: string) {
      const deleted = yield* sql`DELETE FROM password_reset_requests WHERE id = ${id} RETURNING id`.pipe(orUnavailable)
      return deleted.length > 0
    })

    return AccountTokenRepository.of({ insert, findByDigest, use, useAll, requestReset, claimResetRequests, completeResetRequest })
  })
)
