import { Layer } from "effect"
import { Domain as CoreDomain, type DomainOptions, Primitives } from "../domain.ts"
import { type Store, type StoreProduct, StoreProducts } from "../purchases/index.ts"
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
import { StoresMemory } from "./memory-stores.ts"
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

/** The base of links in messages sent by `Domain.layerMemory`. */
export const memoryPublicUrl = "https://atrium.test"

/** The stores as a test configures them: products for sale and which stores are set up. */
export interface StoreSetup {
  readonly products?: ReadonlyArray<StoreProduct> | undefined
  /** The stores the scripted `Stores` sells through (none unless given); a test of the real adapters `replace`s `Stores`. */
  readonly configured?: ReadonlyArray<Store> | undefined
}

/** A memory domain as a test sets it up: policies and stores. */
export interface MemorySetup extends Partial<DomainOptions> {
  readonly stores?: StoreSetup | undefined
}

/** A memory domain with ports that take the place of the memory ones (a failing repository, a real resolver). */
export interface MemorySetupReplacing<Replaced, ReplaceError, ReplaceNeeds> extends MemorySetup {
  /** Built over the other ports, so it may wrap them. */
  readonly replace: Layer.Layer<Replaced, ReplaceError, ReplaceNeeds>
}

// Every port outside storage, scripted: webhook receiver, mailbox, AI provider, stores, DNS, fast password hasher.
const outsideMemory = (stores: StoreSetup) =>
  Layer.mergeAll(
    Primitives.layer,
    ModelCatalog.layer,
    WebhookTransportMemory,
    AiProviderMemory,
    SecretBox.layerMemory,
    PasswordHasherMemory,
    DnsResolverMemory,
    MailerMemory,
    StoresMemory(stores.configured ?? []),
    StoreProducts.layerWith(stores.products ?? [])
  )

const build = <Storage, StorageError, StorageNeeds, Replaced, ReplaceError, ReplaceNeeds>(
  storage: Layer.Layer<Storage, StorageError, StorageNeeds>,
  replace: Layer.Layer<Replaced, ReplaceError, ReplaceNeeds>,
  { stores = {}, ...options }: MemorySetup
) =>
  CoreDomain.layerWith({ publicUrl: memoryPublicUrl, ...options }).pipe(
    Layer.provideMerge(replace.pipe(Layer.provideMerge(Layer.merge(storage, outsideMemory(stores)))))
  )

type Over<S, SE, SN, R, RE, RN> = ReturnType<typeof build<S, SE, SN, R, RE, RN>>

/**
 * The domain over `storage` (a contract suite's Postgres ports, or `Layer.empty` to leave them to the caller) with
 * every other port in memory.
 */
function layerOver<S, SE, SN>(storage: Layer.Layer<S, SE, SN>, setup?: MemorySetup): Over<S, SE, SN, never, never, never>
function layerOver<S, SE, SN, R, RE, RN>(storage: Layer.Layer<S, SE, SN>, setup: MemorySetupReplacing<R, RE, RN>): Over<S, SE, SN, R, RE, RN>
function layerOver<S, SE, SN, R, RE, RN>(storage: Layer.Layer<S, SE, SN>, setup: MemorySetup | MemorySetupReplacing<R, RE, RN> = {}) {
  return "replace" in setup ? build(storage, setup.replace, setup) : build(storage, Layer.empty, setup)
}

type PortsInMemory = Layer.Success<typeof PortsMemory>

/** The domain with every port in memory, set up as a test needs. */
function layerMemoryWith(setup?: MemorySetup): Over<PortsInMemory, never, never, never, never, never>
function layerMemoryWith<R, RE, RN>(setup: MemorySetupReplacing<R, RE, RN>): Over<PortsInMemory, never, never, R, RE, RN>
function layerMemoryWith<R, RE, RN>(setup: MemorySetup | MemorySetupReplacing<R, RE, RN> = {}) {
  return "replace" in setup ? build(PortsMemory, setup.replace, setup) : build(PortsMemory, Layer.empty, setup)
}

/**
 * The composition root (`Domain.layerWith`) with the memory layers: `Domain.layerMemory` is the whole domain with no
 * I/O — memory ports, a fast test password hasher, a scripted webhook receiver, mailbox, AI provider (the local provider
 * until a test scripts it), scripted stores (`FakeStores`), a scripted DNS (`DnsZone`), primitives and
 * the built-in model catalog, no store configured; `Domain.layerMemoryWith(setup)` changes what a test needs, and
 * `Domain.layerOver(storage, setup)` puts other storage (a contract suite's database) under the same memory outside.
 */
export const Domain = {
  ...CoreDomain,
  layerMemoryWith,
  layerMemory: layerMemoryWith(),
  layerOver
}
export * from "./worker-passes.ts"
