import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * In-app purchases. Entitlements become grants per source: the key grows from (workspace, feature) to (workspace,
 * feature, source, source_ref), so a purchase's grant and a manual grant of one feature live side by side. Today's
 * rows keep their source with an empty reference.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE entitlements ADD COLUMN source_ref text NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE entitlements DROP CONSTRAINT entitlements_pkey`
  yield* sql`ALTER TABLE entitlements ADD CONSTRAINT entitlements_pkey PRIMARY KEY (workspace_id, feature, source, source_ref)`
})
