import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * In-app purchases: purchases (unique per store and store reference), account links, client sync keys, the store
 * notification inbox and credit grants (once per store transaction). Entitlements become grants per source: the key grows from (workspace, feature) to (workspace,
 * feature, source, source_ref), so a purchase's grant and a manual grant of one feature live side by side. Today's
 * rows keep their source with an empty reference.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE entitlements ADD COLUMN source_ref text NOT NULL DEFAULT ''`
  yield* sql`ALTER TABLE entitlements DROP CONSTRAINT entitlements_pkey`
  yield* sql`ALTER TABLE entitlements ADD CONSTRAINT entitlements_pkey PRIMARY KEY (workspace_id, feature, source, source_ref)`
  // A Google purchase token is never stored in plain: its digest is the store reference, a sealed copy serves re-reads.
  yield* sql`
    CREATE TABLE purchases (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id text NOT NULL,
      store text NOT NULL CHECK (store IN ('app_store', 'play_store')),
      environment text NOT NULL CHECK (environment IN ('production', 'sandbox')),
      product_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('subscription', 'non_consumable', 'consumable')),
      store_ref text NOT NULL,
      sealed_token text CHECK (sealed_token IS NULL OR sealed_token LIKE 'v1.%'),
      status text NOT NULL,
      auto_renew boolean NOT NULL,
      expires_at timestamptz,
      latest_transaction_id text NOT NULL,
      last_event_at timestamptz NOT NULL,
      last_verified_at timestamptz,
      acknowledged_at timestamptz,
      ack_attempts integer NOT NULL DEFAULT 0,
      next_check_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT purchases_store_ref_key UNIQUE (store, store_ref)
    )
  `
  yield* sql`CREATE INDEX purchases_workspace_created_idx ON purchases (workspace_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX purchases_next_check_idx ON purchases (next_check_at) WHERE next_check_at IS NOT NULL`
  yield* sql`
    CREATE TABLE purchase_account_links (
      token text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id text NOT NULL,
      created_at timestamptz NOT NULL,
      CONSTRAINT purchase_account_links_member_key UNIQUE (workspace_id, user_id)
    )
  `
  yield* sql`
    CREATE TABLE purchase_sync_keys (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      key text NOT NULL,
      request_hash text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (workspace_id, key)
    )
  `
  // Raw bodies are sealed: a Google push carries the purchase token.
  yield* sql`
    CREATE TABLE store_notifications (
      id text PRIMARY KEY,
      source text NOT NULL CHECK (source IN ('apple', 'google', 'client_sync')),
      external_id text NOT NULL,
      sealed_body text NOT NULL CHECK (sealed_body LIKE 'v1.%'),
      workspace_id text,
      user_id text,
      received_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      processed_at timestamptz,
      outcome text,
      CONSTRAINT store_notifications_external_key UNIQUE (source, external_id)
    )
  `
  yield* sql`CREATE INDEX store_notifications_due_idx ON store_notifications (next_attempt_at) WHERE processed_at IS NULL`
  yield* sql`
    CREATE TABLE credit_grants (
      reference text PRIMARY KEY,
      workspace_id text NOT NULL,
      micros bigint NOT NULL CHECK (micros > 0),
      created_at timestamptz NOT NULL
    )
  `
})
