import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Custom domains: one row per workspace and hostname, with the verification state and the check queue. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The checks mirror the domain schemas (normalised hostname, hex token, statuses), so a bug cannot store what the
  // domain could never decode. `observed_*` is what the last check saw (all NULL before the first check).
  yield* sql`
    CREATE TABLE custom_domains (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      hostname text NOT NULL CHECK (hostname ~ '^[a-z0-9][a-z0-9.-]{2,251}[a-z0-9]$'),
      status text NOT NULL CHECK (status IN ('pending_verification', 'verified', 'misconfigured', 'verification_failed')),
      token text NOT NULL CHECK (token ~ '^[0-9a-f]{32}$'),
      misconfigured_reason text CHECK (misconfigured_reason IN ('proof_missing', 'claimed_elsewhere')),
      observed_txt text[],
      observed_cname text,
      observed_error text,
      observed_at timestamptz,
      verified_at timestamptz,
      last_checked_at timestamptz,
      pending_since timestamptz NOT NULL,
      proof_missing_since timestamptz,
      checks integer NOT NULL CHECK (checks >= 0),
      next_check_at timestamptz,
      created_by jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT custom_domains_workspace_hostname_key UNIQUE (workspace_id, hostname)
    )
  `
  // At most one workspace holds a verified hostname; the domain hands it over in one transaction, so this only ever
  // refuses a bug.
  yield* sql`CREATE UNIQUE INDEX custom_domains_verified_hostname_key ON custom_domains (hostname) WHERE status = 'verified'`
  yield* sql`CREATE INDEX custom_domains_hostname_idx ON custom_domains (hostname, id)`
  // The queue: only rows with a next check are indexed.
  yield* sql`CREATE INDEX custom_domains_due_idx ON custom_domains (next_check_at) WHERE next_check_at IS NOT NULL`
  yield* sql`CREATE INDEX custom_domains_workspace_created_idx ON custom_domains (workspace_id, created_at DESC, id DESC)`
})
