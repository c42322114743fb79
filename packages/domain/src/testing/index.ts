import { Layer } from "effect"
import { AiServices, CustomDomainServices, DomainServices, EngagementServices, IdentityServices, mailServices, Primitives, PurchaseServices, RequestLogServices, ScheduleServices } from "../layers.ts"
import { defaultMailPolicy } from "../mail/index.ts"
import { type Store, type StoreProduct, StoreProducts, type Stores } from "../purchases/index.ts"
import { MailerMemory, MailRepositoryMemory } from "./memory-mail.ts"
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
import { NotificationInboxMemory, PurchaseRepositoryMemory } from "./memory-purchases.ts"
import { FakeStores, StoresMemory } from "./memory-stores.ts"
import { WebhookTransportMemory } from "./memory-webhook-transport.ts"
import { FeatureRequestRepositoryMemory } from "./memory-feedback.ts"
import { PushDeviceRepositoryMemory, PushMessageRepositoryMemory } from "./memory-notifications.ts"
import { DeliveryRepositoryMemory, WebhookEndpointRepositoryMemory } from "./memory-webhooks.ts"
import { RequestLogRepositoryMemory } from "./memory-request-logs.ts"

export * from "./memory-ai-provider.ts"
export * from "./memory-ai-tasks.ts"
export * from "./memory-dns-resolver.ts"
export * from "./memory-domains.ts"
export * from "./memory-identity.ts"
export * from "./memory-mail.ts"
export * from "./memory-password-hasher.ts"
export * from "./memory-purchases.ts"
export * from "./memory-stores.ts"
export * from "./memory-repositories.ts"
export * from "./memory-schedules.ts"
export * from "./memory-store.ts"
export * from "./memory-webhook-transport.ts"
export * from "./memory-webhooks.ts"
export * from "./memory-feedback.ts"
export * from "./memory-notifications.ts"
export * from "./memory-request-logs.ts"
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
  PurchaseRepositoryMemory,
  NotificationInboxMemory,
  DomainRepositoryMemory,
  MailRepositoryMemory,
  FeatureRequestRepositoryMemory,
  PushDeviceRepositoryMemory,
  PushMessageRepositoryMemory,
  RequestLogRepositoryMemory,
  TransactorMemory
).pipe(Layer.provideMerge(MemoryStore.layer))

/** The base of links in messages sent by `DomainMemory`. */
export const memoryPublicUrl = "https://atrium.test"

/** The stores as a test configures them: products for sale and which stores are set up. */
export interface StoreSetup<R = never> {
  readonly products?: ReadonlyArray<StoreProduct> | undefined
  /** The stores the scripted `Stores` sells through (none unless given). */
  readonly configured?: ReadonlyArray<Store> | undefined
  /** The stores' adapters instead of the scripted ones (the adapters' tests pass theirs, over fake store APIs). */
  readonly stores?: Layer.Layer<Stores, never, R> | undefined
}

/**
 * The whole domain with no I/O: services (identity, mail, schedules, custom domains and purchases included), memory
 * ports, a fast test password hasher, a scripted webhook receiver, a scripted mailbox, a scripted AI provider that acts
 * as the local provider until a test scripts it, scripted stores (`FakeStores`), a scripted DNS
 * (`DnsZone`), primitives and the built-in model catalog. No store is configured unless `stores` says so.
 */
export const domainMemory = <R = never>(stores: StoreSetup<R> = {}) =>
  PurchaseServices.pipe(
    Layer.provideMerge(Layer.mergeAll(
      DomainServices,
      AiServices,
      IdentityServices,
      EngagementServices,
      CustomDomainServices,
      RequestLogServices,
      ScheduleServices.pipe(Layer.provideMerge(AiServices)),
      mailServices(defaultMailPolicy(memoryPublicUrl))
    )),
    Layer.provideMerge(
      Layer.mergeAll(
        PortsMemory,
        Primitives(),
        ModelCatalog.layer,
        WebhookTransportMemory,
        AiProviderMemory,
        SecretBox.layerRandom,
        PasswordHasherMemory,
        DnsResolverMemory,
        MailerMemory,
        stores.stores === undefined ? StoresMemory(stores.configured ?? []) : Layer.merge(stores.stores, FakeStores.layer),
        StoreProducts.layerFrom(stores.products ?? [])
      )
    )
  )

/** The whole domain with no I/O and no store configured. */
export const DomainMemory = domainMemory()
