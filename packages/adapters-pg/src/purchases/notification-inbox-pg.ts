import { NotificationInbox, type NotificationOutcome, type NotificationSource, StoreNotification, type StoreNotificationId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { StoreNotificationRow } from "./purchase-rows.ts"

const columns = "id, source, external_id, sealed_body, workspace_id, user_id, received_at, attempts, next_attempt_at, processed_at, outcome"
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(StoreNotificationRow))
const toItems = (rows: unknown) => decodeRows(rows).pipe(Effect.map((decoded) => decoded.map((row) => new StoreNotification(row))))
const time = DateTime.toDateUtc

/** Postgres store notification inbox: deduplicated by (source, external_id), leased with SKIP LOCKED. */
export const NotificationInboxPg = Layer.effect(
  NotificationInbox,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("NotificationInbox.insert")(function*(item: StoreNotification) {
      // A notification stored is announced to idle workers of every process when the transaction commits.
      const rows = yield* sql`
        WITH inserted AS (INSERT INTO store_notifications (${sql.literal(columns)})
        VALUES (${item.id}, ${item.source}, ${item.externalId}, ${item.sealedBody}, ${Option.getOrNull(item.workspaceId)},
          ${Option.getOrNull(item.userId)}, ${time(item.receivedAt)}, ${item.attempts},
          ${Option.getOrNull(Option.map(item.nextAttemptAt, time))}, ${Option.getOrNull(Option.map(item.processedAt, time))},
          ${Option.getOrNull(item.outcome)})
        ON CONFLICT (source, external_id) DO NOTHING
        RETURNING id)
        SELECT id, pg_notify(${workChannel}, 'store_notifications') FROM inserted
      `.pipe(orUnavailable)
      return rows.length === 1
    })

    const claimDue = Effect.fn("NotificationInbox.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id FROM store_notifications
          WHERE processed_at IS NULL AND next_attempt_at <= ${time(now)}
          ORDER BY next_attempt_at, id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE store_notifications n SET next_attempt_at = ${time(leaseUntil)} FROM due WHERE n.id = due.id
        RETURNING ${sql.literal(columns.split(", ").map((column) => `n.${column}`).join(", "))}
      `.pipe(Effect.flatMap(toItems), orUnavailable)
    })

    const complete = Effect.fn("NotificationInbox.complete")(function*(id: StoreNotificationId, outcome: NotificationOutcome, at: DateTime.Utc) {
      yield* sql`UPDATE store_notifications SET processed_at = ${time(at)}, outcome = ${outcome}, next_attempt_at = NULL WHERE id = ${id}`.pipe(
        orUnavailable
      )
    })

    const retryAt = Effect.fn("NotificationInbox.retryAt")(function*(id: StoreNotificationId, attempts: number, at: DateTime.Utc) {
      yield* sql`UPDATE store_notifications SET attempts = ${attempts}, next_attempt_at = ${time(at)} WHERE id = ${id}`.pipe(orUnavailable)
    })

    const findById = Effect.fn("NotificationInbox.findById")(function*(id: StoreNotificationId) {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM store_notifications WHERE id = ${id}`.pipe(Effect.flatMap(toItems), orUnavailable)
      return Option.fromNullishOr(rows[0])
    })

    const findByExternalId = Effect.fn("NotificationInbox.findByExternalId")(function*(source: NotificationSource, externalId: string) {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM store_notifications WHERE source = ${source} AND external_id = ${externalId}`.pipe(
        Effect.flatMap(toItems),
        orUnavailable
      )
      return Option.fromNullishOr(rows[0])
    })

    const requeue = Effect.fn("NotificationInbox.requeue")(function*(id: StoreNotificationId, at: DateTime.Utc) {
      const rows = yield* sql`
        UPDATE store_notifications SET processed_at = NULL, outcome = NULL, next_attempt_at = ${time(at)} WHERE id = ${id} RETURNING id
      `.pipe(orUnavailable)
      return rows.length === 1
    })

    const listRecent = Effect.fn("NotificationInbox.listRecent")(function*(limit: number, only: NotificationOutcome | "pending" | undefined) {
      const filter = only === undefined ? sql`TRUE` : only === "pending" ? sql`processed_at IS NULL` : sql`outcome = ${only}`
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM store_notifications WHERE ${filter}
        ORDER BY received_at DESC, id DESC LIMIT ${Math.max(0, Math.trunc(limit))}
      `.pipe(Effect.flatMap(toItems), orUnavailable)
    })

    return NotificationInbox.of({ insert, claimDue, complete, retryAt, findById, findByExternalId, requeue, listRecent })
  })
)
