import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The public feature-request board with its votes, push devices, notification preferences and the push outbox. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE feature_requests (
      id text PRIMARY KEY,
      workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
      author_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      author_name text NOT NULL,
      title text NOT NULL CHECK (char_length(title) BETWEEN 3 AND 120),
      details text NOT NULL CHECK (char_length(details) <= 5000),
      status text NOT NULL CHECK (status IN ('open', 'under_review', 'planned', 'in_progress', 'shipped', 'declined', 'merged')),
      status_note text,
      merged_into text REFERENCES feature_requests (id),
      vote_count bigint NOT NULL DEFAULT 0 CHECK (vote_count >= 0),
      idempotency_key text,
      created_at timestamptz NOT NULL,
      status_changed_at timestamptz NOT NULL,
      CONSTRAINT feature_requests_merged CHECK ((status = 'merged') = (merged_into IS NOT NULL)),
      CONSTRAINT feature_requests_author_idempotency_key UNIQUE (author_id, idempotency_key)
    )
  `
  yield* sql`CREATE INDEX feature_requests_new_idx ON feature_requests (created_at DESC, id DESC)`
  yield* sql`CREATE INDEX feature_requests_top_idx ON feature_requests (vote_count DESC, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX feature_requests_author_created_idx ON feature_requests (author_id, created_at)`
  yield* sql`
    CREATE TABLE feature_request_votes (
      request_id text NOT NULL REFERENCES feature_requests (id) ON DELETE CASCADE,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (request_id, user_id)
    )
  `
  yield* sql`CREATE INDEX feature_request_votes_user_idx ON feature_request_votes (user_id)`
  // The token is an address for one device, not a credential; it is unique so a token belongs to one user at a time.
  yield* sql`
    CREATE TABLE push_devices (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      session_id text NOT NULL,
      installation_id text NOT NULL,
      expo_push_token text NOT NULL CONSTRAINT push_devices_token_key UNIQUE,
      platform text NOT NULL CHECK (platform IN ('ios', 'android')),
      app_version text NOT NULL,
      locale text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT push_devices_user_installation_key UNIQUE (user_id, installation_id)
    )
  `
  yield* sql`CREATE INDEX push_devices_session_idx ON push_devices (session_id)`
  yield* sql`
    CREATE TABLE notification_preferences (
      user_id text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      preferences jsonb NOT NULL
    )
  `
  yield* sql`
    CREATE TABLE push_messages (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      device_id text NOT NULL,
      expo_push_token text NOT NULL,
      category text NOT NULL,
      event_id text,
      title text NOT NULL,
      body text NOT NULL,
      data jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'failed')),
      attempts integer NOT NULL CHECK (attempts >= 0),
      next_attempt_at timestamptz,
      ticket_id text,
      receipt_check_at timestamptz,
      last_error text,
      lease_until timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CONSTRAINT push_messages_event_device_key UNIQUE (event_id, device_id)
    )
  `
  yield* sql`CREATE INDEX push_messages_due_idx ON push_messages (next_attempt_at) WHERE status = 'pending'`
  yield* sql`CREATE INDEX push_messages_receipts_idx ON push_messages (receipt_check_at) WHERE status = 'sent'`
})
