import { ApiKey, type ApiKeyId, ApiKeyRepository, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `api_keys` row as the driver returns it: `timestamptz` as `Date`, `scopes` as `text[]`, `created_by` as parsed `jsonb`. */
const ApiKeyRow = Schema.Struct({
  ...ApiKey.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  revokedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  lastUsedAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())

const columns =
  "id, workspace_id, name, environment, display_prefix, digest, scopes, created_by, created_at, expires_at, revoked_at, last_used_at, replaced_by"

/** Postgres API keys: looked up by digest (unique) for authentication, by workspace for management. */
export const ApiKeyRepositoryPg = Layer.effect(
  ApiKeyRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const { decode: toKeys, findOne, findInWorkspace, newestInWorkspace } = tableReads(sql, { name: "api_keys", columns, Row: ApiKeyRow, Class: ApiKey })

    const insert = Effect.fn("ApiKeyRepository.insert")(function*(key: ApiKey) {
      yield* sql`
        INSERT INTO api_keys (${sql.literal(columns)})
        VALUES (
          ${key.id}, ${key.workspaceId}, ${key.name}, ${key.environment}, ${key.displayPrefix}, ${key.digest},
          ${[...key.scopes]}::text[], ${JSON.stringify(key.createdBy)}::jsonb, ${DateTime.toDateUtc(key.createdAt)},
          ${dateOrNull(key.expiresAt)}, ${dateOrNull(key.revokedAt)}, ${dateOrNull(key.lastUsedAt)}, ${Option.getOrNull(key.replacedBy)}
        )
      `.pipe(orUnavailable)
    })

    const findByDigest = Effect.fn("ApiKeyRepository.findByDigest")(function*(digest: string) {
      return yield* findOne(sql`digest = ${digest}`)
    })

    const findById = Effect.fn("ApiKeyRepository.findById")(function*(workspaceId: WorkspaceId, id: ApiKeyId) {
      return yield* findInWorkspace(workspaceId, id)
    })

    const list = Effect.fn("ApiKeyRepository.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    // COALESCE keeps the first revocation time when two revocations race.
    const revoke = Effect.fn("ApiKeyRepository.revoke")(function*(workspaceId: WorkspaceId, id: ApiKeyId, at: DateTime.Utc) {
      const keys = yield* sql`
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${DateTime.toDateUtc(at)})
        WHERE workspace_id = ${workspaceId} AND id = ${id}
        RETURNING ${sql.literal(columns)}
      `.pipe(Effect.flatMap(toKeys), orUnavailable)
      return Option.fromNullishOr(keys[0])
    })

    // One conditional statement: of two concurrent rolls (or a roll and a revocation) only the first matches.
    const markRolled = Effect.fn("ApiKeyRepository.markRolled")(
      function*(workspaceId: WorkspaceId, id: ApiKeyId, replacedBy: ApiKeyId, expiresAt: DateTime.Utc, now: DateTime.Utc) {
        const keys = yield* sql`
          UPDATE api_keys SET replaced_by = ${replacedBy}, expires_at = ${DateTime.toDateUtc(expiresAt)}
          WHERE workspace_id = ${workspaceId} AND id = ${id} AND revoked_at IS NULL AND replaced_by IS NULL
            AND (expires_at IS NULL OR expires_at > ${DateTime.toDateUtc(now)})
          RETURNING ${sql.literal(columns)}
        `.pipe(Effect.flatMap(toKeys), orUnavailable)
        return Option.fromNullishOr(keys[0])
      }
    )

    // GREATEST keeps the latest time when processes write out of order.
    const touchLastUsed = Effect.fn("ApiKeyRepository.touchLastUsed")(function*(id: ApiKeyId, at: DateTime.Utc) {
      const time = DateTime.toDateUtc(at)
      yield* sql`UPDATE api_keys SET last_used_at = GREATEST(last_used_at, ${time}::timestamptz) WHERE id = ${id}`.pipe(orUnavailable)
    })

    return ApiKeyRepository.of({ insert, findByDigest, findById, list, revoke, markRolled, touchLastUsed })
  })
)
