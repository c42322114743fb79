import { Entitlement, EntitlementRepository, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

/** The `entitlements` row as the driver returns it. */
const EntitlementRow = Schema.Struct({
  ...Entitlement.fields,
  grantedAt: Schema.DateTimeUtcFromDate,
  expiresAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate)
}).pipe(snakeCaseColumns())

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(EntitlementRow))

/** Postgres entitlements: one row per workspace, feature, source and source reference; a new grant replaces the old. */
export const EntitlementRepositoryPg = Layer.effect(
  EntitlementRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const upsert = Effect.fn("EntitlementRepository.upsert")(function*(entitlement: Entitlement) {
      const expiresAt = Option.getOrNull(Option.map(entitlement.expiresAt, DateTime.toDateUtc))
      yield* sql`
        INSERT INTO entitlements (workspace_id, feature, source, source_ref, granted_at, expires_at)
        VALUES (${entitlement.workspaceId}, ${entitlement.feature}, ${entitlement.source}, ${entitlement.sourceRef},
          ${DateTime.toDateUtc(entitlement.grantedAt)}, ${expiresAt})
        ON CONFLICT (workspace_id, feature, source, source_ref) DO UPDATE
        SET granted_at = EXCLUDED.granted_at, expires_at = EXCLUDED.expires_at
      `.pipe(orUnavailable)
    })

    const listByWorkspace = Effect.fn("EntitlementRepository.listByWorkspace")(function*(workspaceId: WorkspaceId) {
      return yield* sql`
        SELECT workspace_id, feature, source, source_ref, granted_at, expires_at FROM entitlements
        WHERE workspace_id = ${workspaceId} ORDER BY feature, source, source_ref
      `.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows.map((row) => new Entitlement(row))),
        orUnavailable
      )
    })

    return EntitlementRepository.of({ upsert, listByWorkspace })
  })
)
