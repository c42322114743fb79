import {
  ApiKey,
  ApiKeyId,
  AuditEntry,
  AuditEntryId,
  DomainEvent,
  EventId,
  systemActor,
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
