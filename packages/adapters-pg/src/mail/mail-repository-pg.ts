import { type MailAddress, MailMessage, type MailMessageId, MailRepository, MailStatus } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { MailMessageRow } from "./mail-rows.ts"

const decodeMessages = Schema.decodeUnknownEffect(Schema.Array(MailMessageRow))
const decodeStatuses = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ dedupe_key: Schema.String, status: MailStatus })))

const columns =
  "id, dedupe_key, recipient, content, sealed_token, link_expires_at, status, attempts, last_error, next_attempt_at, created_at, updated_at, sent_at"

const dateOrNull = (value: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(value, DateTime.toDateUtc))

/** The Postgres mail outbox: unique per change (`dedupe_key`), claimed with leases by any number of senders. */
export const MailRepositoryPg = Layer.effect(
  MailRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toMessages = (rows: ReadonlyArray<unknown>) =>
      decodeMessages(rows).pipe(Effect.map((decoded) => decoded.map((row) => new MailMessage(row))))

    // ON CONFLICT on the change's key: the same change never stores a second message, and nothing fails. A message
    // stored is announced to idle senders of every process when the transaction commits.
    const insert = Effect.fn("MailRepository.insert")(function*(message: MailMessage) {
      const inserted = yield* sql`
        WITH inserted AS (INSERT INTO mail_messages (
          id, dedupe_key, recipient, template, content, sealed_token, link_expires_at, status, attempts, last_error,
          next_attempt_at, created_at, updated_at, sent_at
        ) VALUES (
          ${message.id}, ${message.dedupeKey}, ${message.to}, ${message.template}, ${JSON.stringify(message.content)}::jsonb,
          ${Option.getOrNull(message.sealedToken)}, ${dateOrNull(message.linkExpiresAt)}, ${message.status}, ${message.attempts},
          ${Option.getOrNull(message.lastError)}, ${dateOrNull(message.nextAttemptAt)}, ${DateTime.toDateUtc(message.createdAt)},
          ${DateTime.toDateUtc(message.updatedAt)}, ${dateOrNull(message.sentAt)}
        )
        ON CONFLICT (dedupe_key) DO NOTHING
        RETURNING id)
        SELECT id, pg_notify(${workChannel}, 'mail_messages') FROM inserted
      `.pipe(orUnavailable)
      return inserted.length > 0
    })

    // One statement picks, locks and leases the due rows (SKIP LOCKED: concurrent senders pass over each other's);
    // the returned message carries its due time, the stored row the lease.
    const claimDue = Effect.fn("MailRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id, next_attempt_at AS due_at FROM mail_messages
          WHERE status = 'pending' AND next_attempt_at <= ${DateTime.toDateUtc(now)}
          ORDER BY next_attempt_at, id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE mail_messages m SET next_attempt_at = ${DateTime.toDateUtc(leaseUntil)}
        FROM due WHERE m.id = due.id
        RETURNING m.id, m.dedupe_key, m.recipient, m.content, m.sealed_token, m.link_expires_at, m.status, m.attempts,
          m.last_error, due.due_at AS next_attempt_at, m.created_at, m.updated_at, m.sent_at
      `.pipe(Effect.flatMap(toMessages), orUnavailable)
    })

    // Compare-and-set on (status, attempts): a sender whose lease ran out cannot overwrite the one that took over.
    const settle = Effect.fn("MailRepository.settle")(function*(previous: MailMessage, next: MailMessage) {
      const updated = yield* sql`
        UPDATE mail_messages SET
          status = ${next.status},
          attempts = ${next.attempts},
          last_error = ${Option.getOrNull(next.lastError)},
          next_attempt_at = ${dateOrNull(next.nextAttemptAt)},
          sealed_token = ${Option.getOrNull(next.sealedToken)},
          updated_at = ${DateTime.toDateUtc(next.updatedAt)},
          sent_at = ${dateOrNull(next.sentAt)}
        WHERE id = ${previous.id} AND status = 'pending' AND attempts = ${previous.attempts}
        RETURNING id
      `.pipe(orUnavailable)
      return updated.length > 0
    })

    const findById = Effect.fn("MailRepository.findById")(function*(id: MailMessageId) {
      const messages = yield* sql`SELECT ${sql.literal(columns)} FROM mail_messages WHERE id = ${id}`.pipe(Effect.flatMap(toMessages), orUnavailable)
      return Option.fromNullishOr(messages[0])
    })

    const listByRecipient = Effect.fn("MailRepository.listByRecipient")(function*(to: MailAddress, limit: number) {
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM mail_messages WHERE recipient = ${to}
        ORDER BY created_at DESC, id DESC LIMIT ${Math.max(0, Math.trunc(limit))}
      `.pipe(Effect.flatMap(toMessages), orUnavailable)
    })

    const statusesOf = Effect.fn("MailRepository.statusesOf")(function*(dedupeKeys: ReadonlyArray<string>) {
      const rows = yield* sql`
        SELECT dedupe_key, status FROM mail_messages WHERE dedupe_key = ANY (${[...dedupeKeys]}::text[])
      `.pipe(Effect.flatMap(decodeStatuses), orUnavailable)
      return new Map(rows.map((row) => [row.dedupe_key, row.status] as const))
    })
    const listFailed = Effect.fn("MailRepository.listFailed")(function*(limit: number) {
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM mail_messages WHERE status = 'failed'
        ORDER BY updated_at DESC, id DESC LIMIT ${Math.max(0, Math.trunc(limit))}
      `.pipe(Effect.flatMap(toMessages), orUnavailable)
    })

    return MailRepository.of({ insert, claimDue, settle, findById, listByRecipient, listFailed, statusesOf })
  })
)
