export { InvalidSignature, PurchaseOwnedElsewhere, StoreNotConfigured, StoreRejected, StoreUnreachable } from "./purchase-errors.ts"
export { PurchaseEvents } from "./purchase-events.ts"
export { type AccountLink, PurchaseRepository } from "./purchase-repository.ts"
export { AppAccountToken, type ProductCatalog, ProductKind, Purchase, type PurchaseOutcome, PurchaseStatus, type PurchaseTransition, Store, StoreEnvironment, type StoreObservation } from "./purchase.ts"
export { Purchases } from "./purchases.ts"
export {
  observationOf,
  type PurchaseClaim,
  type PurchaseLookup,
  type ReceivedNotice,
  type Settlement,
  type StoreDelivery,
  StoreNotice,
  type StoreReading,
  Stores,
  StoreVerdict
} from "./stores.ts"
export { type AppleStoreSettings, type GoogleStoreSettings, StoreConfiguration } from "./store-configuration.ts"
export { NotificationInbox, NotificationOutcome, NotificationSource, StoreNotification } from "./store-notification.ts"
export { StoreProduct, StoreProducts, StoreProductsJson } from "./store-product.ts"
export { type Availability, type OfferedProduct, type UnavailableReason } from "./availability.ts"
export { type QueuedSync, type SyncRequest, type SyncResult } from "./purchase-sync.ts"
