import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Users, memberships, member sessions with their retired refresh tokens, invitations and appearance bundles. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Emails arrive normalised by the domain (trimmed, lower-case), so a plain unique index is case-insensitive.
  // Only a PHC string (`$argon2id$…`) is stored: the check refuses anything that does not even look like one.
  yield* sql`
    CREATE TABLE users (
      id text PRIMARY KEY,
      email text NOT NULL CONSTRAINT users_email_key UNIQUE CHECK (email !~ '[A-Z[:space:]]'),
      name text NOT NULL,
      password_hash text NOT NULL CHECK (password_hash LIKE '$%'),
      created_at timestamptz NOT NULL
    )
  `
  yield* sql`
    CREATE TABLE memberships (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      created_at timestamptz NOT NULL,
      CONSTRAINT memberships_workspace_user_key UNIQUE (workspace_id, user_id)
    )
  `
  yield* sql`CREATE INDEX memberships_workspace_created_idx ON memberships (workspace_id, created_at, id)`
  yield* sql`CREATE INDEX memberships_user_created_idx ON memberships (user_id, created_at, id)`
  // Token digests only. No foreign key on the active workspace: a session outlives a membership (the member
  // is told to switch), and the domain reads the membership on every request anyway.
  yield* sql`
    CREATE TABLE sessions (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      active_workspace_id text NOT NULL,
      access_digest text NOT NULL CONSTRAINT sessions_access_digest_key UNIQUE,
      previous_access_digest text,
      access_expires_at timestamptz NOT NULL,
      refresh_digest text NOT NULL CONSTRAINT sessions_refresh_digest_key UNIQUE,
      refresh_expires_at timestamptz NOT NULL,
      generation integer NOT NULL CHECK (generation >= 0),
      created_at timestamptz NOT NULL,
      last_used_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revoke_reason text CHECK (revoke_reason IN ('signed_out', 'revoked', 'refresh_token_reused')),
      user_agent text,
      CONSTRAINT sessions_revoked_with_reason CHECK ((revoked_at IS NULL) = (revoke_reason IS NULL))
    )
  `
  yield* sql`CREATE INDEX sessions_previous_access_digest_idx ON sessions (previous_access_digest) WHERE previous_access_digest IS NOT NULL`
  yield* sql`CREATE INDEX sessions_user_last_used_idx ON sessions (user_id, last_used_at DESC, id DESC) WHERE revoked_at IS NULL`
  // Refresh digests a rotation retired, kept as long as their session so a replayed token is recognised as reuse.
  yield* sql`
    CREATE TABLE session_refresh_tokens (
      digest text PRIMARY KEY,
      session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      retired_at timestamptz NOT NULL
    )
  `
  yield* sql`CREATE INDEX session_refresh_tokens_session_idx ON session_refresh_tokens (session_id)`
  yield* sql`
    CREATE TABLE invitations (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      email text NOT NULL,
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
      token_digest text NOT NULL CONSTRAINT invitations_token_digest_key UNIQUE,
      invited_by jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      accepted_by text REFERENCES users (id) ON DELETE SET NULL,
      revoked_at timestamptz
    )
  `
  yield* sql`CREATE INDEX invitations_workspace_created_idx ON invitations (workspace_id, created_at DESC, id DESC)`
  // Version 0 means "nothing stored", so a stored row starts at 1.
  yield* sql`
    CREATE TABLE appearance_bundles (
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      bundle jsonb NOT NULL,
      version integer NOT NULL CHECK (version >= 1),
      updated_at timestamptz,
      PRIMARY KEY (workspace_id, user_id)
    )
  `
  yield* sql`CREATE INDEX appearance_bundles_user_idx ON appearance_bundles (user_id)`
})
