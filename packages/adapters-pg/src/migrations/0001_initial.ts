import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Workspaces, API keys (digests only), entitlements, the audit log and the event outbox. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE workspaces (
      id text PRIMARY KEY,
      name text NOT NULL,
      slug text NOT NULL CONSTRAINT workspaces_slug_key UNIQUE,
      personal boolean NOT NULL,
      created_at timestamptz NOT NULL
    )
  `
  // Only the digest of a key is stored; the plaintext never reaches the database.
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      name text NOT NULL,
      environment text NOT NULL,
      display_prefix text NOT NULL,
      digest text NOT NULL CONSTRAINT api_keys_digest_key UNIQUE,
      scopes text[] NOT NULL,
      created_by jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz
    )
  `
  yield* sql`CREATE INDEX api_keys_workspace_created_idx ON api_keys (workspace_id, created_at DESC, id DESC)`
  yield* sql`
    CREATE TABLE entitlements (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      feature text NOT NULL,
      source text NOT NULL,
      granted_at timestamptz NOT NULL,
      expires_at timestamptz,
      PRIMARY KEY (workspace_id, feature)
    )
  `
  // No foreign key: the audit trail and the outbox outlive what they describe.
  yield* sql`
    CREATE TABLE audit_entries (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      actor jsonb NOT NULL,
      action text NOT NULL,
      target text NOT NULL,
      created_at timestamptz NOT NULL,
      request_id text
    )
  `
  yield* sql`CREATE INDEX audit_entries_workspace_created_idx ON audit_entries (workspace_id, created_at DESC, id DESC)`
  yield* sql`
    CREATE TABLE events (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      type text NOT NULL,
      created_at timestamptz NOT NULL,
      data jsonb NOT NULL
    )
  `
  yield* sql`CREATE INDEX events_workspace_created_idx ON events (workspace_id, created_at DESC, id DESC)`
})
