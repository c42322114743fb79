import {
  EndpointSecret,
  type EventType,
  type PageRequest,
  WebhookEndpoint,
  type WebhookEndpointId,
  WebhookEndpointRepository,
  type WorkspaceId
} from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"
import { EndpointSecretRow, WebhookEndpointRow } from "./webhook-rows.ts"

const decodeEndpoints = Schema.decodeUnknownEffect(Schema.Array(WebhookEndpointRow))
const decodeSecrets = Schema.decodeUnknownEffect(Schema.Array(EndpointSecretRow))
const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

const columns = "id, workspace_id, url, description, event_types, enabled, disabled_reason, failing_since, created_at, updated_at"

/** Postgres webhook endpoints and their sealed secrets; another workspace's endpoint reads as absent. */
export const WebhookEndpointRepositoryPg = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toEndpoints = (rows: ReadonlyArray<unknown>) =>
      decodeEndpoints(rows).pipe(Effect.map((decoded) => decoded.map((row) => new WebhookEndpoint(row))))

    // NULL subscribes to every event type; an empty array to none.
    const eventTypesOf = (endpoint: WebhookEndpoint): ReadonlyArray<EventType> | null => Option.getOrNull(endpoint.eventTypes)

    const insert = Effect.fn("WebhookEndpointRepository.insert")(function*(endpoint: WebhookEndpoint) {
      const eventTypes = eventTypesOf(endpoint)
      yield* sql`
        INSERT INTO webhook_endpoints (${sql.literal(columns)})
        VALUES (
          ${endpoint.id}, ${endpoint.workspaceId}, ${endpoint.url}, ${endpoint.description},
          ${eventTypes === null ? null : [...eventTypes]}::text[], ${endpoint.enabled}, ${Option.getOrNull(endpoint.disabledReason)},
          ${dateOrNull(endpoint.failingSince)}, ${DateTime.toDateUtc(endpoint.createdAt)}, ${DateTime.toDateUtc(endpoint.updatedAt)}
        )
      `.pipe(orUnavailable)
    })

    const update = Effect.fn("WebhookEndpointRepository.update")(function*(endpoint: WebhookEndpoint) {
      const eventTypes = eventTypesOf(endpoint)
      yield* sql`
        UPDATE webhook_endpoints SET
          url = ${endpoint.url},
          description = ${endpoint.description},
          event_types = ${eventTypes === null ? null : [...eventTypes]}::text[],
          enabled = ${endpoint.enabled},
          disabled_reason = ${Option.getOrNull(endpoint.disabledReason)},
          failing_since = ${dateOrNull(endpoint.failingSince)},
          updated_at = ${DateTime.toDateUtc(endpoint.updatedAt)}
        WHERE workspace_id = ${endpoint.workspaceId} AND id = ${endpoint.id}
      `.pipe(orUnavailable)
    })

    // Secrets, deliveries and their attempts go with it (ON DELETE CASCADE), in this one statement.
    const remove = Effect.fn("WebhookEndpointRepository.delete")(function*(workspaceId: WorkspaceId, id: WebhookEndpointId) {
      const deleted = yield* sql`DELETE FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(orUnavailable)
      return deleted.length > 0
    })

    const findById = Effect.fn("WebhookEndpointRepository.findById")(function*(workspaceId: WorkspaceId, id: WebhookEndpointId) {
      const endpoints = yield* sql`
        SELECT ${sql.literal(columns)} FROM webhook_endpoints WHERE workspace_id = ${workspaceId} AND id = ${id}
      `.pipe(Effect.flatMap(toEndpoints), orUnavailable)
      return Option.fromNullishOr(endpoints[0])
    })

    const list = Effect.fn("WebhookEndpointRepository.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const endpoints = yield* sql`
        SELECT ${sql.literal(columns)} FROM webhook_endpoints
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(toEndpoints), orUnavailable)
      return toPage(endpoints, page)
    })

    const count = Effect.fn("WebhookEndpointRepository.count")(function*(workspaceId: WorkspaceId) {
      const [row] = yield* sql`SELECT count(*)::int AS count FROM webhook_endpoints WHERE workspace_id = ${workspaceId}`.pipe(
        Effect.flatMap(decodeCount),
        orUnavailable
      )
      return row.count
    })

    const listSubscribed = Effect.fn("WebhookEndpointRepository.listSubscribed")(function*(workspaceId: WorkspaceId, type: EventType) {
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM webhook_endpoints
        WHERE workspace_id = ${workspaceId} AND enabled AND (event_types IS NULL OR ${type} = ANY (event_types))
        ORDER BY created_at, id COLLATE "C"
      `.pipe(Effect.flatMap(toEndpoints), orUnavailable)
    })

    const addSecret = Effect.fn("WebhookEndpointRepository.addSecret")(function*(secret: EndpointSecret) {
      yield* sql`
        INSERT INTO webhook_endpoint_secrets (endpoint_id, sealed, created_at, expires_at)
        VALUES (${secret.endpointId}, ${secret.sealed}, ${DateTime.toDateUtc(secret.createdAt)}, ${dateOrNull(secret.expiresAt)})
      `.pipe(orUnavailable)
    })

    const secrets = Effect.fn("WebhookEndpointRepository.secrets")(function*(id: WebhookEndpointId) {
      return yield* sql`
        SELECT endpoint_id, sealed, created_at, expires_at FROM webhook_endpoint_secrets
        WHERE endpoint_id = ${id}
        ORDER BY created_at DESC, seq DESC
      `.pipe(
        Effect.flatMap(decodeSecrets),
        Effect.map((rows) => rows.map((row) => new EndpointSecret(row))),
        orUnavailable
      )
    })

    // Only shortens: a secret already expiring before `at` keeps its earlier end.
    const expireSecrets = Effect.fn("WebhookEndpointRepository.expireSecrets")(function*(id: WebhookEndpointId, at: DateTime.Utc) {
      const time = DateTime.toDateUtc(at)
      yield* sql`
        UPDATE webhook_endpoint_secrets SET expires_at = ${time}
        WHERE endpoint_id = ${id} AND (expires_at IS NULL OR expires_at > ${time})
      `.pipe(orUnavailable)
    })

    return WebhookEndpointRepository.of({
      insert,
      update,
      delete: remove,
      findById,
      list,
      count,
      listSubscribed,
      addSecret,
      secrets,
      expireSecrets
    })
  })
)
