import {
  EventType,
  AiTask,
  ApiKey,
  ApiKeyId,
  AppearanceSettings,
  AuditEntry,
  AttemptId,
  AuditEntryId,
  DeliveryAttempt,
  DeliveryId,
  DomainEvent,
  EndpointSecret,
  Email,
  EventId,
  Invitation,
  InvitationId,
  Membership,
  MembershipId,
  PushDeviceId,
  PushMessage,
  PushMessageId,
  ModelId,
  type Role,
  Session,
  SessionId,
  systemActor,
  TaskId,
  UsageMonth,
  UsageRecord,
  User,
  UserId,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointId,
  Workspace,
  WorkspaceId,
  WorkspaceSlug
} from "@atrium/domain"
import { randomBytes } from "node:crypto"
import { DateTime, Option, Schema } from "effect"

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
    replacedBy: Option.none(),
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
    eventType: Schema.decodeUnknownSync(EventType)(event.type),
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

/** A user with a unique email; store it with a PHC-looking hash (the table refuses anything else). */
export const makeUser = (overrides: Partial<User> = {}): User => {
  const id = token()
  return new User({ id: UserId.make(`usr_${id}`), email: Email.make(`u${id}@example.com`), name: "Ada", createdAt: at(0), emailVerifiedAt: Option.none(), ...overrides })
}

/** A stand-in Argon2id PHC string: the repository stores it as given. */
export const passwordHash = (): string => `$argon2id$v=19$m=19456,t=2,p=1$${token()}$${token()}`

export const makeMembership = (workspaceId: WorkspaceId, userId: UserId, role: Role, overrides: Partial<Membership> = {}): Membership =>
  new Membership({ id: MembershipId.make(`mem_${token()}`), workspaceId, userId, role, createdAt: at(0), ...overrides })

/** A live session with random digests, its refresh token good until far in the future. */
export const makeSession = (userId: UserId, workspaceId: WorkspaceId, overrides: Partial<Session> = {}): Session =>
  new Session({
    id: SessionId.make(`ses_${token()}`),
    userId,
    activeWorkspaceId: workspaceId,
    accessDigest: `access-${token()}`,
    rotationSalt: Option.none(),
    accessExpiresAt: at(900),
    refreshDigest: `refresh-${token()}`,
    refreshExpiresAt: at(2_592_000),
    generation: 0,
    createdAt: at(0),
    lastUsedAt: at(0),
    revokedAt: Option.none(),
    revokeReason: Option.none(),
    userAgent: Option.some("Atrium iOS/1.0"),
    ...overrides
  })

/** `session` after one rotation at `now`: new digests, the old access digest kept as the previous one. */
export const rotated = (session: Session, now: DateTime.Utc): Session =>
  new Session({
    ...session,
    accessDigest: `access-${token()}`,
    rotationSalt: Option.some(`salt-${token()}`),
    refreshDigest: `refresh-${token()}`,
    generation: session.generation + 1,
    lastUsedAt: now
  })

export const makeInvitation = (workspaceId: WorkspaceId, overrides: Partial<Invitation> = {}): Invitation => {
  const id = token()
  return new Invitation({
    id: InvitationId.make(`inv_${id}`),
    workspaceId,
    email: Email.make(`i${id}@example.com`),
    role: "member",
    tokenDigest: `invitation-${token()}`,
    invitedBy: { type: "user", id: "usr_inviter" },
    createdAt: at(0),
    expiresAt: at(604_800),
    acceptedAt: Option.none(),
    acceptedBy: Option.none(),
    revokedAt: Option.none(),
    ...overrides
  })
}

/** Appearance settings at `version`, saved at `at(version)`, with an extras map that survives the `jsonb` round trip. */
export const makeAppearance = (workspaceId: WorkspaceId, userId: UserId, version: number, theme: "light" | "dark" = "dark"): AppearanceSettings =>
  new AppearanceSettings({
    workspaceId,
    userId,
    bundle: {
      theme,
      accentColor: "#112233",
      textScalePercent: 125,
      reducedMotion: true,
      density: "compact",
      extras: { sidebar: "left", zoom: 1.5, beta: false }
    },
    version,
    updatedAt: Option.some(at(version))
  })

/** A pending push message for `userId`'s device, due at the fixtures' epoch. */
export const makePushMessage = (userId: UserId, deviceId: PushDeviceId = PushDeviceId.make(`dev_${token()}`), overrides: Partial<PushMessage> = {}): PushMessage =>
  new PushMessage({
    id: PushMessageId.make(`push_${token()}`),
    userId,
    deviceId,
    sealedToken: `v1.${token()}.sealed`,
    tokenDigest: `digest-${token()}`,
    category: "ai_tasks",
    eventId: Option.none(),
    title: "t",
    body: "b",
    data: { a: "1" },
    status: "pending",
    attempts: 0,
    nextAttemptAt: Option.some(at(0)),
    ticketId: Option.none(),
    receiptCheckAt: Option.none(),
    lastError: Option.none(),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides
  })
