import {
  type AttemptRecord,
  type ClaimedDelivery,
  DeliveryAttempt,
  type DeliveryId,
  DeliveryRepository,
  type DeliveryStatus,
  type PageRequest,
  WebhookDelivery,
  type WebhookEndpointId,
  type WorkspaceId
} from "@atrium/domain"
import { Array as Arr, DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { workChannel } from "../shared/work-wakeups.ts"
import { dateOrNull } from "../shared/sql-values.ts"
import { ClaimedBatchJson, DeliveryAttemptRow, WebhookDeliveryRow } from "./webhook-rows.ts"

const decodeDeliveries = Schema.decodeUnknownEffect(Schema.Array(WebhookDeliveryRow))
const decodeAttempts = Schema.decodeUnknownEffect(Schema.Array(DeliveryAttemptRow))
// A claim answers exactly one row holding the whole batch.
const decodeClaim = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ claimed: ClaimedBatchJson })]))

const columns =
  "id, workspace_id, endpoint_id, event_id, event_type, status, attempt_count, next_attempt_at, last_status_code, replay_of, created_at, updated_at"

/** Postgres delivery queue and attempt log; any number of processes may claim from it at once. */
export const DeliveryRepositoryPg = Layer.effect(
  DeliveryRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // Claim and attempt-record commits skip the WAL flush wait: a crash losing one only re-sends after the lease, which at-least-once (receivers dedupe on webhook-id) already allows.
    const asyncCommit = sql.literal("async_commit AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true))")

    const toDeliveries = (rows: ReadonlyArray<unknown>) =>
      decodeDeliveries(rows).pipe(Effect.map((decoded) => decoded.map((row) => new WebhookDelivery(row))))

    const insertMany = Effect.fn("DeliveryRepository.insertMany")(function*(deliveries: ReadonlyArray<WebhookDelivery>) {
      const rows = deliveries.map((d): Record<string, unknown> => ({
        id: d.id,
        workspace_id: d.workspaceId,
        endpoint_id: d.endpointId,
        event_id: d.eventId,
        event_type: d.eventType,
        status: d.status,
        attempt_count: d.attemptCount,
        next_attempt_at: dateOrNull(d.nextAttemptAt),
        last_status_code: Option.getOrNull(d.lastStatusCode),
        replay_of: Option.getOrNull(d.replayOf),
        created_at: DateTime.toDateUtc(d.createdAt),
        updated_at: DateTime.toDateUtc(d.updatedAt)
      }))
      if (!Arr.isReadonlyArrayNonEmpty(rows)) return
      // Idle workers of every process hear of the new work when the inserting transaction commits.
      yield* sql`
        WITH inserted AS (INSERT INTO webhook_deliveries ${sql.insert(rows)})
        SELECT pg_notify(${workChannel}, 'webhook_deliveries')
      `.pipe(orUnavailable)
    })

    const findById = Effect.fn("DeliveryRepository.findById")(function*(workspaceId: WorkspaceId, id: DeliveryId) {
      const deliveries = yield* sql`
        SELECT ${sql.literal(columns)} FROM webhook_deliveries WHERE workspace_id = ${workspaceId} AND id = ${id}
      `.pipe(Effect.flatMap(toDeliveries), orUnavailable)
      return Option.fromNullishOr(deliveries[0])
    })

    const listByEndpoint = Effect.fn("DeliveryRepository.listByEndpoint")(
      function*(workspaceId: WorkspaceId, endpointId: WebhookEndpointId, status: DeliveryStatus | undefined, page: PageRequest) {
        const deliveries = yield* sql`
          SELECT ${sql.literal(columns)} FROM webhook_deliveries
          WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId}
            AND ${status === undefined ? sql`TRUE` : sql`status = ${status}`}
            AND ${afterCursor(sql, page)}
          ORDER BY created_at DESC, id COLLATE "C" DESC
          LIMIT ${fetchSize(page)}
        `.pipe(Effect.flatMap(toDeliveries), orUnavailable)
        return toPage(deliveries, page)
      }
    )

    const attempts = Effect.fn("DeliveryRepository.attempts")(function*(id: DeliveryId) {
      return yield* sql`
        SELECT id, delivery_id, number, started_at, duration_millis, status_code, error_kind, response_headers,
          response_body, remote_address, next_attempt_at
        FROM webhook_attempts WHERE delivery_id = ${id} ORDER BY number, started_at
      `.pipe(
        Effect.flatMap(decodeAttempts),
        Effect.map((rows) => rows.map((row) => new DeliveryAttempt(row))),
        orUnavailable
      )
    })

    // One statement picks, locks and leases the due rows and answers them as one JSON document: each delivery with its
    // event, and each of their endpoints once with its secrets, so a claim is one round trip and one decode. SKIP LOCKED
    // lets concurrent claimers pass over each other's rows instead of waiting or taking them twice; the CTE is
    // MATERIALIZED so the locking pick with its LIMIT runs exactly once. The returned delivery carries its due time (as
    // the in-memory queue does); the stored row carries the lease.
    const claimDue = Effect.fn("DeliveryRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      const [{ claimed }] = yield* sql`
        WITH ${asyncCommit}, due AS MATERIALIZED (
          SELECT d.id, d.next_attempt_at AS due_at
          FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${DateTime.toDateUtc(now)} AND e.enabled
          ORDER BY d.next_attempt_at, d.id
          LIMIT ${size}
          FOR UPDATE OF d SKIP LOCKED
        ), leased AS (
          UPDATE webhook_deliveries d SET next_attempt_at = ${DateTime.toDateUtc(leaseUntil)}
          FROM due, async_commit WHERE d.id = due.id
          RETURNING d.id, d.workspace_id, d.endpoint_id, d.event_id, d.event_type, d.status, d.attempt_count,
            due.due_at, d.last_status_code, d.replay_of, d.created_at, d.updated_at
        )
        SELECT json_build_object(
          'deliveries', coalesce((
            SELECT json_agg(json_build_object(
              'delivery', json_build_object(
                'id', l.id, 'workspaceId', l.workspace_id, 'endpointId', l.endpoint_id, 'eventId', l.event_id,
                'eventType', l.event_type, 'status', l.status, 'attemptCount', l.attempt_count, 'nextAttemptAt', l.due_at,
                'lastStatusCode', l.last_status_code, 'replayOf', l.replay_of, 'createdAt', l.created_at, 'updatedAt', l.updated_at
              ),
              'event', json_build_object(
                'id', ev.id, 'type', ev.type, 'workspaceId', ev.workspace_id, 'createdAt', ev.created_at, 'data', ev.data
              )
            ) ORDER BY l.due_at, l.id)
            FROM leased l JOIN events ev ON ev.id = l.event_id
          ), '[]'),
          'endpoints', coalesce((
            SELECT json_agg(json_build_object(
              'endpoint', json_build_object(
                'id', e.id, 'workspaceId', e.workspace_id, 'url', e.url, 'description', e.description,
                'eventTypes', e.event_types, 'enabled', e.enabled, 'disabledReason', e.disabled_reason,
                'failingSince', e.failing_since, 'createdAt', e.created_at, 'updatedAt', e.updated_at
              ),
              'secrets', coalesce((
                SELECT json_agg(json_build_object(
                  'endpointId', s.endpoint_id, 'sealed', s.sealed, 'createdAt', s.created_at, 'expiresAt', s.expires_at
                ) ORDER BY s.created_at DESC, s.seq DESC)
                FROM webhook_endpoint_secrets s WHERE s.endpoint_id = e.id
              ), '[]')
            ))
            FROM webhook_endpoints e WHERE e.id IN (SELECT endpoint_id FROM leased)
          ), '[]')
        ) AS claimed
      `.pipe(Effect.flatMap(decodeClaim), orUnavailable)
      const endpoints = new Map(claimed.endpoints.map((entry) => [entry.endpoint.id, entry]))
      return claimed.deliveries.flatMap(({ delivery, event }): Array<ClaimedDelivery> => {
        const entry = endpoints.get(delivery.endpointId)
        return entry === undefined ? [] : [{ delivery, event, endpoint: entry.endpoint, secrets: entry.secrets }]
      })
    })

    // The attempt and the delivery's new state in one statement, so neither is ever stored without the other.
    const recordAttempt = Effect.fn("DeliveryRepository.recordAttempt")(function*(attempt: DeliveryAttempt, delivery: WebhookDelivery) {
      yield* sql`
        WITH attempt AS (
          INSERT INTO webhook_attempts (
            id, delivery_id, number, started_at, duration_millis, status_code, error_kind, response_headers,
            response_body, remote_address, next_attempt_at
          ) VALUES (
            ${attempt.id}, ${attempt.deliveryId}, ${attempt.number}, ${DateTime.toDateUtc(attempt.startedAt)}, ${attempt.durationMillis},
            ${Option.getOrNull(attempt.statusCode)}, ${Option.getOrNull(attempt.errorKind)}, ${JSON.stringify(attempt.responseHeaders)}::jsonb,
            ${attempt.responseBody}, ${Option.getOrNull(attempt.remoteAddress)}, ${dateOrNull(attempt.nextAttemptAt)}
          )
        )
        UPDATE webhook_deliveries SET
          status = ${delivery.status},
          attempt_count = ${delivery.attemptCount},
          next_attempt_at = ${dateOrNull(delivery.nextAttemptAt)},
          last_status_code = ${Option.getOrNull(delivery.lastStatusCode)},
          updated_at = ${DateTime.toDateUtc(delivery.updatedAt)}
        WHERE id = ${delivery.id}
      `.pipe(orUnavailable)
    })

    // Any number of attempts in one statement: the rows travel as one jsonb parameter; each attempt is inserted once
    // (by id), each delivery moves only from the state its attempt was judged on (a stale lease's late write moves
    // nothing), and the endpoints of the moved deliveries end or start their failing streak. Endpoint rows are locked
    // in id order so two workers' passes touching the same endpoints queue up instead of deadlocking.
    const recordAttempts = Effect.fn("DeliveryRepository.recordAttempts")(function*(records: ReadonlyArray<AttemptRecord>) {
      if (records.length === 0) return
      const rows = records.map(({ attempt, delivery }) => ({
        id: attempt.id,
        delivery_id: attempt.deliveryId,
        number: attempt.number,
        started_at: DateTime.formatIso(attempt.startedAt),
        duration_millis: attempt.durationMillis,
        status_code: Option.getOrNull(attempt.statusCode),
        error_kind: Option.getOrNull(attempt.errorKind),
        response_headers: attempt.responseHeaders,
        response_body: attempt.responseBody,
        remote_address: Option.getOrNull(attempt.remoteAddress),
        attempt_next_at: Option.getOrNull(Option.map(attempt.nextAttemptAt, DateTime.formatIso)),
        endpoint_id: delivery.endpointId,
        status: delivery.status,
        attempt_count: delivery.attemptCount,
        next_attempt_at: Option.getOrNull(Option.map(delivery.nextAttemptAt, DateTime.formatIso)),
        last_status_code: Option.getOrNull(delivery.lastStatusCode),
        updated_at: DateTime.formatIso(delivery.updatedAt)
      }))
      yield* sql`
        WITH ${asyncCommit}, r AS MATERIALIZED (
          SELECT r.* FROM async_commit, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
            id text, delivery_id text, number integer, started_at timestamptz, duration_millis integer, status_code integer,
            error_kind text, response_headers jsonb, response_body text, remote_address text, attempt_next_at timestamptz,
            endpoint_id text, status text, attempt_count integer, next_attempt_at timestamptz, last_status_code integer,
            updated_at timestamptz
          )
        ), attempts AS (
          INSERT INTO webhook_attempts (
            id, delivery_id, number, started_at, duration_millis, status_code, error_kind, response_headers,
            response_body, remote_address, next_attempt_at
          )
          SELECT id, delivery_id, number, started_at, duration_millis, status_code, error_kind, response_headers,
            response_body, remote_address, attempt_next_at
          FROM r
          ON CONFLICT (id) DO NOTHING
        ), moved AS (
          UPDATE webhook_deliveries d SET
            status = r.status, attempt_count = r.attempt_count, next_attempt_at = r.next_attempt_at,
            last_status_code = r.last_status_code, updated_at = r.updated_at
          FROM r WHERE d.id = r.delivery_id AND d.attempt_count = r.attempt_count - 1
          RETURNING r.endpoint_id, r.status, r.started_at, r.updated_at
        ), streak AS (
          SELECT endpoint_id, bool_or(status = 'succeeded') AS healed, min(started_at) AS failing_from, max(updated_at) AS updated_at
          FROM moved GROUP BY endpoint_id
        ), changing AS MATERIALIZED (
          SELECT e.id FROM webhook_endpoints e JOIN streak ON streak.endpoint_id = e.id
          WHERE (streak.healed AND e.failing_since IS NOT NULL) OR (NOT streak.healed AND e.failing_since IS NULL)
          ORDER BY e.id
          FOR UPDATE OF e
        )
        UPDATE webhook_endpoints e SET
          failing_since = CASE WHEN streak.healed THEN NULL ELSE streak.failing_from END,
          updated_at = streak.updated_at
        FROM changing JOIN streak ON streak.endpoint_id = changing.id
        WHERE e.id = changing.id
      `.pipe(orUnavailable)
    })

    const failedSince = Effect.fn("DeliveryRepository.failedSince")(
      function*(workspaceId: WorkspaceId, endpointId: WebhookEndpointId, since: DateTime.Utc) {
        return yield* sql`
          SELECT ${sql.literal(columns)} FROM webhook_deliveries
          WHERE workspace_id = ${workspaceId} AND endpoint_id = ${endpointId} AND status = 'failed'
            AND created_at >= ${DateTime.toDateUtc(since)}
          ORDER BY created_at, id COLLATE "C"
        `.pipe(Effect.flatMap(toDeliveries), orUnavailable)
      }
    )

    const failPending = Effect.fn("DeliveryRepository.failPending")(function*(endpointId: WebhookEndpointId, at: DateTime.Utc) {
      yield* sql`
        UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ${DateTime.toDateUtc(at)}
        WHERE endpoint_id = ${endpointId} AND status = 'pending'
      `.pipe(orUnavailable)
    })

    return DeliveryRepository.of({ insertMany, findById, listByEndpoint, attempts, claimDue, recordAttempt, recordAttempts, failedSince, failPending })
  })
)
