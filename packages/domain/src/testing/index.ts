import { Layer } from "effect"
import { AiServices, CustomDomainServices, DomainServices, EngagementServices, IdentityServices, Primitives, ScheduleServices } from "../layers.ts"
import { SecretBox } from "../shared/index.ts"
import { ModelCatalog } from "../ai/index.ts"
import { ApiKeyRepositoryMemory, AuditLogMemory, EntitlementRepositoryMemory, EventOutboxMemory, WorkspaceRepositoryMemory } from "./memory-repositories.ts"
import { AiProviderMemory } from "./memory-ai-provider.ts"
import { AiTaskRepositoryMemory, BillingRepositoryMemory } from "./memory-ai-tasks.ts"
import { DnsResolverMemory } from "./memory-dns-resolver.ts"
import { DomainRepositoryMemory } from "./memory-domains.ts"
import { IdentityPortsMemory } from "./memory-identity.ts"
import { PasswordHasherMemory } from "./memory-password-hasher.ts"
import { ScheduleRepositoryMemory } from "./memory-schedules.ts"
import { MemoryStore, TransactorMemory } from "./memory-store.ts"
import { WebhookTransportMemory } from "./memory-webhook-transport.ts"
import { FeatureRequestRepositoryMemory } from "./memory-feedback.ts"
import { PushDeviceRepositoryMemory, PushMessageRepositoryMemory } from "./memory-notifications.ts"
import { DeliveryRepositoryMemory, WebhookEndpointRepositoryMemory } from "./memory-webhooks.ts"

export * from "./memory-ai-provider.ts"
export * from "./memory-ai-tasks.ts"
export * from "./memory-dns-resolver.ts"
export * from "./memory-domains.ts"
export * from "./memory-identity.ts"
export * from "./memory-password-hasher.ts"
export * from "./memory-repositories.ts"
export * from "./memory-schedules.ts"
export * from "./memory-store.ts"
export * from "./memory-webhook-transport.ts"
export * from "./memory-webhooks.ts"
export * from "./memory-feedback.ts"
export * from "./memory-notifications.ts"
export * from "./principals.ts"

/** Every port in memory, sharing one `MemoryStore`. */
export const PortsMemory = Layer.mergeAll(
  WorkspaceRepositoryMemory,
  ApiKeyRepositoryMemory,
  EntitlementRepositoryMemory,
  AuditLogMemory,
  EventOutboxMemory,
  WebhookEndpointRepositoryMemory,
  DeliveryRepositoryMemory,
  AiTaskRepositoryMemory,
  BillingRepositoryMemory,
  IdentityPortsMemory,
  ScheduleRepositoryMemory,
  DomainRepositoryMemory,
  FeatureRequestRepositoryMemory,
  PushDeviceRepositoryMemory,
  PushMessageRepositoryMemory,
  TransactorMemory
).pipe(Layer.provideMerge(MemoryStore.layer))

/**
 * The whole domain with no I/O: services (identity included), memory ports, a fast test password hasher, a scripted
 * webhook receiver, a scripted AI provider that acts as the local provider until a test scripts it, primitives and the
 * built-in model catalog, and a scripted DNS (`DnsZone`).
 */
export const DomainMemory = Layer.mergeAll(
  DomainServices,
  AiServices,
  IdentityServices,
  EngagementServices,
  CustomDomainServices,
  ScheduleServices.pipe(Layer.provideMerge(AiServices))
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      PortsMemory,
      Primitives(),
      ModelCatalog.layer,
      WebhookTransportMemory,
      AiProviderMemory,
      SecretBox.layerRandom,
      PasswordHasherMemory,
      DnsResolverMemory
    )
  )
)
