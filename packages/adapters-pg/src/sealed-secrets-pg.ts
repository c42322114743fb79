import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** A webhook signing secret still in use, sealed under the server key, with the endpoint it signs for. */
export interface LiveSealedSecret {
  readonly endpointId: string
  readonly workspaceId: string
  readonly sealed: string
}

/** Up to `limit` signing secrets that deliveries would still open (unexpired), newest first: a start-up check of the key. */
export const liveSealedSecrets = Effect.fn("SealedSecrets.live")(function*(limit: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ readonly endpoint_id: string; readonly workspace_id: string; readonly sealed: string }>`
    SELECT s.endpoint_id, e.workspace_id, s.sealed
    FROM webhook_endpoint_secrets s JOIN webhook_endpoints e ON e.id = s.endpoint_id
    WHERE s.expires_at IS NULL OR s.expires_at > now()
    ORDER BY s.created_at DESC, s.seq DESC
    LIMIT ${limit}
  `
  return rows.map((row): LiveSealedSecret => ({ endpointId: row.endpoint_id, workspaceId: row.workspace_id, sealed: row.sealed }))
})
