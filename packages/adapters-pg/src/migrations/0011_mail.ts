import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Transactional mail: verified addresses, one-time account tokens (digests only) and the mail outbox. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE users ADD COLUMN email_verified_at timestamptz`
  // A password reset ends every session of the account: a reason of its own, so the session list can say why.
  yield* sql`ALTER TABLE sessions DROP CONSTRAINT sessions_revoke_reason_check`
  yield* sql`
    ALTER TABLE sessions ADD CONSTRAINT sessions_revoke_reason_check
      CHECK (revoke_reason IN ('signed_out', 'revoked', 'refresh_token_reused', 'password_reset'))
  `
  // Digests only; `email` is the address the link went to, which is what opening it proves.
  yield* sql`
    CREATE TABLE account_tokens (
      id text PRIMARY KEY,
      user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      purpose text NOT NULL CHECK (purpose IN ('email_verification', 'password_reset')),
      email text NOT NULL,
      digest text NOT NULL CONSTRAINT account_tokens_digest_key UNIQUE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )
  `
  yield* sql`CREATE INDEX account_tokens_user_unused_idx ON account_tokens (user_id, purpose) WHERE used_at IS NULL`
  // The outbox. A message's one-time token is kept only sealed (AES-GCM under the server key) and only while the
  // message is pending: the check makes a sent or failed message with a token impossible to store.
  yield* sql`
    CREATE TABLE mail_messages (
      id text PRIMARY KEY,
      dedupe_key text NOT NULL CONSTRAINT mail_messages_dedupe_key_key UNIQUE,
      recipient text NOT NULL,
      template text NOT NULL CHECK (template IN ('email_verification', 'password_reset', 'invitation')),
      content jsonb NOT NULL,
      sealed_token text CHECK (sealed_token LIKE 'v1.%'),
      link_expires_at timestamptz,
      status text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
      attempts integer NOT NULL CHECK (attempts >= 0),
      last_error text,
      next_attempt_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      sent_at timestamptz,
      CONSTRAINT mail_messages_token_only_while_pending CHECK (status = 'pending' OR sealed_token IS NULL),
      CONSTRAINT mail_messages_content_template CHECK (content ->> 'template' = template)
    )
  `
  yield* sql`CREATE INDEX mail_messages_due_idx ON mail_messages (next_attempt_at, id) WHERE status = 'pending'`
  yield* sql`CREATE INDEX mail_messages_recipient_idx ON mail_messages (recipient, created_at DESC, id DESC)`
})
