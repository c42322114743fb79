import {
  AiTask,
  ApiKey,
  ApiKeyId,
  AuditEntry,
  AttemptId,
  AuditEntryId,
  DeliveryAttempt,
  DeliveryId,
  DomainEvent,
  EndpointSecret,
  EventId,
  ModelId,
  systemActor,
  TaskId,
  UsageMonth,
  UsageRecord,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointId,
  Workspace,
  WorkspaceId,
  WorkspaceSlug
} from "@atrium/domain"
import { randomBytes } from "node:crypto"
import { DateTime, Option } from "effect"

/** A random id body, unique across test runs sharing one database. */
export const token = (): string => randomBytes(12).toString("hex")

/** A fixed instant plus `seconds`, so ordering is explicit and independent of the test clock. */
export const at = (seconds: number): DateTime.Utc => DateTime.makeUnsafe(Date.UTC(2030, 0, 1) + seconds * 1000)

export const actor = systemActor("test")

export const makeWorkspace = (overrides: Partial<Workspace> = {}): Workspace => {
  const id = token()
  return new Workspace({
    id: WorkspaceId.make(`ws_${id}`),
    name: "Acme",
    slug: WorkspaceSlug.make(`acme-${id}`),
    personal: false,
    createdAt: at(0),
    ...overrides
  })
}

export const makeApiKey = (workspaceId: WorkspaceId, overrides: Partial<ApiKey> = {}): ApiKey =>
  new ApiKey({
    id: ApiKeyId.make(`key_${token()}`),
    workspaceId,
    name: "ci",
    environment: "live",
    displayPrefix: "sk_live_AbC12345",
    digest: `digest-${token()}`,
    scopes: ["read", "webhooks:write"],
    createdBy: actor,
    createdAt: at(0),
    expiresAt: Option.none(),
    revokedAt: Option.none(),
    lastUsedAt: Option.none(),
    ...overrides
  })

export const makeAuditEntry = (workspaceId: WorkspaceId, createdAt: DateTime.Utc): AuditEntry =>
  new AuditEntry({
    id: AuditEntryId.make(`aud_${token()}`),
    workspaceId,
    actor,
    action: "api_key.created",
    target: "key_x",
    createdAt,
    requestId: Option.some(`req-${token()}`)
  })

export const makeEvent = (workspaceId: WorkspaceId, createdAt: DateTime.Utc): DomainEvent =>
  new DomainEvent({
    id: EventId.make(`evt_${token()}`),
    type: "entitlement.granted",
    workspaceId,
    createdAt,
    data: { feature: "ai.basic", source: "plan", expiresAt: null, nested: { list: [1, 2, 3] } }
  })

export const makeEndpoint = (workspaceId: WorkspaceId, overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint =>
  new WebhookEndpoint({
    id: WebhookEndpointId.make(`whe_${token()}`),
    workspaceId,
    url: "https://example.com/hooks",
    description: "orders",
    eventTypes: Option.none(),
    enabled: true,
    disabledReason: Option.none(),
    failingSince: Option.none(),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides
  })

export const makeSecret = (endpointId: WebhookEndpointId, createdAt: DateTime.Utc, expiresAt: Option.Option<DateTime.Utc> = Option.none()): EndpointSecret =>
  new EndpointSecret({ endpointId, sealed: `v1.${token()}.${token()}`, createdAt, expiresAt })

/** A pending delivery of `event`; not due for a long while unless `nextAttemptAt` says otherwise, so queue tests only see their own. */
export const makeDelivery = (event: DomainEvent, endpointId: WebhookEndpointId, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery =>
  new WebhookDelivery({
    id: DeliveryId.make(`msg_${token()}`),
    workspaceId: event.workspaceId,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    status: "pending",
    attemptCount: 0,
    nextAttemptAt: Option.some(at(10_000_000)),
    lastStatusCode: Option.none(),
    replayOf: Option.none(),
    createdAt: event.createdAt,
    updatedAt: event.createdAt,
    ...overrides
  })

export const makeAttempt = (deliveryId: DeliveryId, number: number, overrides: Partial<DeliveryAttempt> = {}): DeliveryAttempt =>
  new DeliveryAttempt({
    id: AttemptId.make(`att_${token()}`),
    deliveryId,
    number,
    startedAt: at(number * 60),
    durationMillis: 120,
    statusCode: Option.some(500),
    errorKind: Option.some("non_2xx"),
    responseHeaders: { "content-type": "text/plain", "retry-after": "5" },
    responseBody: "upstream down",
    remoteAddress: Option.some("192.0.2.10"),
    nextAttemptAt: Option.some(at(number * 60 + 5)),
    ...overrides
  })

/** A queued AI task on a prompt; not due for a long while unless `nextAttemptAt` says otherwise, so queue tests only see their own. */
export const makeAiTask = (workspaceId: WorkspaceId, overrides: Partial<AiTask> = {}): AiTask =>
  new AiTask({
    id: TaskId.make(`task_${token()}`),
    workspaceId,
    model: ModelId.make("atrium-local-1"),
    status: "queued",
    input: { prompt: "hello" },
    maxOutputTokens: 4000,
    metadata: {},
    output: Option.none(),
    inputTokens: Option.none(),
    outputTokens: Option.none(),
    costMicros: Option.none(),
    reservedMicros: 1601,
    error: Option.none(),
    attempts: 0,
    nextAttemptAt: Option.some(at(10_000_000)),
    submittedBy: { type: "api_key", id: "key_test" },
    createdAt: at(0),
    startedAt: Option.none(),
    finishedAt: Option.none(),
    ...overrides
  })

/** A usage record of a (made-up) succeeded task. */
export const makeUsageRecord = (workspaceId: WorkspaceId, createdAt: DateTime.Utc, overrides: Partial<UsageRecord> = {}): UsageRecord =>
  new UsageRecord({
    taskId: TaskId.make(`task_${token()}`),
    workspaceId,
    model: ModelId.make("atrium-local-1"),
    inputTokens: 2,
    outputTokens: 6,
    costMicros: 4,
    month: UsageMonth.make("2030-01"),
    createdAt,
    ...overrides
  })
