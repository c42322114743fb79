import {
  NotificationPreferences,
  PushDevice,
  type PushDeviceId,
  PushDeviceRepository,
  PushMessage,
  PushMessageRepository,
  type SessionId,
  UserId
} from "@atrium/domain"
import { Array as Arr, DateTime, type Duration, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { Fragment } from "effect/sql/Statement"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { dateOrNull } from "../shared/sql-values.ts"

const PushDeviceRow = Schema.Struct({
  ...PushDevice.fields,
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
const decodeDevices = Schema.decodeUnknownEffect(Schema.Array(PushDeviceRow))
const deviceColumns = "id, user_id, session_id, installation_id, sealed_token, token_digest, platform, app_version, locale, created_at, updated_at"

const PreferencesRow = Schema.Struct({ user_id: UserId, preferences: NotificationPreferences })
const decodePreferences = Schema.decodeUnknownEffect(Schema.Array(PreferencesRow))

const PushMessageRow = Schema.Struct({
  ...PushMessage.fields,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  receiptCheckAt: Schema.OptionFromNullOr(Schema.DateTimeUtcFromDate),
  createdAt: Schema.DateTimeUtcFromDate,
  updatedAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
const decodeMessages = Schema.decodeUnknownEffect(Schema.Array(PushMessageRow))
const messageColumns =
  "id, user_id, device_id, sealed_token, token_digest, category, event_id, title, body, data, status, attempts, next_attempt_at, ticket_id, receipt_check_at, last_error, created_at, updated_at"

/** Postgres push devices and notification preferences. */
export const PushDeviceRepositoryPg = Layer.effect(
  PushDeviceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const toDevices = (rows: ReadonlyArray<unknown>) => decodeDevices(rows).pipe(Effect.map((decoded) => decoded.map((row) => new PushDevice(row))))

    // A device that goes takes its unsent messages with it: nothing queued for a signed-out session or a moved
    // token is delivered later. One statement; answers the ids of the devices that went.
    const forget = (where: Fragment) =>
      sql<{ readonly id: PushDeviceId }>`
        WITH gone AS (DELETE FROM push_devices WHERE ${where} RETURNING id),
          dropped AS (DELETE FROM push_messages WHERE status = 'pending' AND device_id IN (SELECT id FROM gone))
        SELECT id FROM gone
      `.pipe(Effect.map((rows) => rows.map((row) => row.id)))

    // The token moves with its newest registration: any other row holding it (found by its digest, as the token arrives
    // sealed) goes first, in the same transaction.
    const upsert = Effect.fn("PushDeviceRepository.upsert")(function*(device: PushDevice) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* forget(sql`token_digest = ${device.tokenDigest} AND NOT (user_id = ${device.userId} AND installation_id = ${device.installationId})`)
        const rows = yield* sql`
          INSERT INTO push_devices (${sql.literal(deviceColumns)})
          VALUES (${device.id}, ${device.userId}, ${device.sessionId}, ${device.installationId}, ${device.sealedToken}, ${device.tokenDigest}, ${device.platform},
            ${device.appVersion}, ${device.locale}, ${DateTime.toDateUtc(device.createdAt)}, ${DateTime.toDateUtc(device.updatedAt)})
          ON CONFLICT (user_id, installation_id) DO UPDATE SET session_id = EXCLUDED.session_id, sealed_token = EXCLUDED.sealed_token,
            token_digest = EXCLUDED.token_digest,
            platform = EXCLUDED.platform, app_version = EXCLUDED.app_version, locale = EXCLUDED.locale, updated_at = EXCLUDED.updated_at
          RETURNING ${sql.literal(deviceColumns)}
        `.pipe(Effect.flatMap(toDevices))
        return rows[0] ?? device
      })).pipe(orUnavailable)
    })

    const find = Effect.fn("PushDeviceRepository.find")(function*(userId: UserId, installationId: string) {
      const rows = yield* sql`
        SELECT ${sql.literal(deviceColumns)} FROM push_devices WHERE user_id = ${userId} AND installation_id = ${installationId}
      `.pipe(Effect.flatMap(toDevices), orUnavailable)
      return Option.fromNullishOr(rows[0])
    })

    const listByUsers = Effect.fn("PushDeviceRepository.listByUsers")(function*(userIds: ReadonlyArray<UserId>) {
      if (userIds.length === 0) return []
      return yield* sql`
        SELECT ${sql.literal(deviceColumns)} FROM push_devices WHERE user_id = ANY (${[...userIds]}::text[]) ORDER BY created_at, id
      `.pipe(Effect.flatMap(toDevices), orUnavailable)
    })

    const deleteOne = Effect.fn("PushDeviceRepository.delete")(function*(userId: UserId, installationId: string) {
      return (yield* forget(sql`user_id = ${userId} AND installation_id = ${installationId}`).pipe(orUnavailable)).length > 0
    })

    const preferences = Effect.fn("PushDeviceRepository.preferences")(function*(userIds: ReadonlyArray<UserId>) {
      if (userIds.length === 0) return new Map<UserId, NotificationPreferences>()
      const rows = yield* sql`
        SELECT user_id, preferences FROM notification_preferences WHERE user_id = ANY (${[...userIds]}::text[])
      `.pipe(Effect.flatMap(decodePreferences), orUnavailable)
      return new Map(rows.map((row) => [row.user_id, row.preferences] as const))
    })

    return PushDeviceRepository.of({
      upsert,
      find,
      listByUser: (userId) => listByUsers([userId]),
      listByUsers,
      delete: deleteOne,
      deleteBySession: (sessionId: SessionId) => forget(sql`session_id = ${sessionId}`).pipe(orUnavailable),
      deleteByTokenDigest: (digest) => forget(sql`token_digest = ${digest}`).pipe(orUnavailable),
      preferences,
      savePreferences: (userId, next) =>
        sql`
          INSERT INTO notification_preferences (user_id, preferences) VALUES (${userId}, ${JSON.stringify(next)}::jsonb)
          ON CONFLICT (user_id) DO UPDATE SET preferences = EXCLUDED.preferences
        `.pipe(Effect.asVoid, orUnavailable)
    })
  })
)

/** Postgres push outbox; claims are `SKIP LOCKED` leases any number of processes may take at once. */
export const PushMessageRepositoryPg = Layer.effect(
  PushMessageRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const toMessages = (rows: ReadonlyArray<unknown>) => decodeMessages(rows).pipe(Effect.map((decoded) => decoded.map((row) => new PushMessage(row))))

    const insertMany = Effect.fn("PushMessageRepository.insertMany")(function*(messages: ReadonlyArray<PushMessage>) {
      const rows = messages.map((m): Record<string, unknown> => ({
        id: m.id,
        user_id: m.userId,
        device_id: m.deviceId,
        sealed_token: m.sealedToken,
        token_digest: m.tokenDigest,
        category: m.category,
        event_id: Option.getOrNull(m.eventId),
        title: m.title,
        body: m.body,
        data: JSON.stringify(m.data),
        status: m.status,
        attempts: m.attempts,
        next_attempt_at: dateOrNull(m.nextAttemptAt),
        ticket_id: Option.getOrNull(m.ticketId),
        receipt_check_at: dateOrNull(m.receiptCheckAt),
        last_error: Option.getOrNull(m.lastError),
        created_at: DateTime.toDateUtc(m.createdAt),
        updated_at: DateTime.toDateUtc(m.updatedAt)
      }))
      if (!Arr.isReadonlyArrayNonEmpty(rows)) return
      // At-least-once fan-out never sends one event twice to one device; messages stored are announced to idle senders
      // of every process when the transaction commits.
      yield* sql`
        WITH inserted AS (INSERT INTO push_messages ${sql.insert(rows)} ON CONFLICT (event_id, device_id) DO NOTHING RETURNING 1)
        SELECT pg_notify(${workChannel}, 'push_messages') WHERE EXISTS (SELECT 1 FROM inserted)
      `.pipe(orUnavailable)
    })

    const claim = (dueColumn: "next_attempt_at" | "receipt_check_at", status: "pending" | "sent") =>
      Effect.fn(`PushMessageRepository.claim.${status}`)(function*(limit: number, now: DateTime.Utc, lease: Duration.Duration) {
        const size = Math.max(0, Math.trunc(limit))
        if (size === 0) return []
        const at = DateTime.toDateUtc(now)
        return yield* sql`
          WITH due AS MATERIALIZED (
            SELECT id FROM push_messages
            WHERE status = ${status} AND ${sql(dueColumn)} <= ${at} AND (lease_until IS NULL OR lease_until <= ${at})
            ORDER BY ${sql(dueColumn)}, id LIMIT ${size}
            FOR UPDATE SKIP LOCKED
          )
          UPDATE push_messages m SET lease_until = ${DateTime.toDateUtc(DateTime.addDuration(now, lease))}
          FROM due WHERE m.id = due.id
          RETURNING ${sql.literal(messageColumns.split(", ").map((column) => `m.${column}`).join(", "))}
        `.pipe(Effect.flatMap(toMessages), orUnavailable)
      })

    const updateMany = Effect.fn("PushMessageRepository.updateMany")(function*(messages: ReadonlyArray<PushMessage>) {
      yield* Effect.forEach(messages, (m) =>
        sql`
          UPDATE push_messages SET status = ${m.status}, attempts = ${m.attempts}, next_attempt_at = ${dateOrNull(m.nextAttemptAt)},
            ticket_id = ${Option.getOrNull(m.ticketId)}, receipt_check_at = ${dateOrNull(m.receiptCheckAt)}, last_error = ${Option.getOrNull(m.lastError)},
            lease_until = NULL, updated_at = ${DateTime.toDateUtc(m.updatedAt)}
          WHERE id = ${m.id}
        `, { discard: true }).pipe(orUnavailable)
    })

    return PushMessageRepository.of({
      insertMany,
      claimDue: claim("next_attempt_at", "pending"),
      claimReceiptsDue: claim("receipt_check_at", "sent"),
      updateMany,
    })
  })
)
