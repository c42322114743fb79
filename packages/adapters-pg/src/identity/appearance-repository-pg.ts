import { AppearanceRepository, AppearanceSettings, type UserId, type WorkspaceId } from "@atrium/domain"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AppearanceRow } from "./identity-rows.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(AppearanceRow))

/** Postgres appearance bundles, one per member per workspace, written by compare-and-set on their version. */
export const AppearanceRepositoryPg = Layer.effect(
  AppearanceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const get = Effect.fn("AppearanceRepository.get")(function*(workspaceId: WorkspaceId, userId: UserId) {
      const rows = yield* sql`
        SELECT workspace_id, user_id, bundle, version, updated_at FROM appearance_bundles
        WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
      `.pipe(Effect.flatMap(decodeRows), orUnavailable)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => new AppearanceSettings(row))
    })

    // Expecting version 0 ("none stored") may only insert: a conflict means someone stored one first. Expecting a
    // stored version may only update that version: an upsert would otherwise insert a row nobody had read. Either
    // way one statement decides, and a concurrent writer waits for the row (or index entry) and then misses.
    const put = Effect.fn("AppearanceRepository.put")(function*(next: AppearanceSettings, expectedVersion: number) {
      const bundle = JSON.stringify(next.bundle)
      const updatedAt = dateOrNull(next.updatedAt)
      const written = expectedVersion === 0
        ? yield* sql`
          INSERT INTO appearance_bundles (workspace_id, user_id, bundle, version, updated_at)
          VALUES (${next.workspaceId}, ${next.userId}, ${bundle}::jsonb, ${next.version}, ${updatedAt})
          ON CONFLICT (workspace_id, user_id) DO NOTHING
          RETURNING version
        `.pipe(orUnavailable)
        : yield* sql`
          UPDATE appearance_bundles SET bundle = ${bundle}::jsonb, version = ${next.version}, updated_at = ${updatedAt}
          WHERE workspace_id = ${next.workspaceId} AND user_id = ${next.userId} AND version = ${expectedVersion}
          RETURNING version
        `.pipe(orUnavailable)
      return written.length > 0
    })

    return AppearanceRepository.of({ get, put })
  })
)
