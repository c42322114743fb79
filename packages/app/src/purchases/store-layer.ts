import { AppStoreApiHttp, PlayDeveloperApiHttp } from "@atrium/adapters-http/outbound"
import { AppStoreApi, PlayStoreApi, StoreConfiguration, StoreProducts, StoreUnreachable } from "@atrium/domain"
import { Effect, Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import type { StoresConfig } from "./store-config.ts"
import { storeSignaturesLayer } from "./store-signatures-node.ts"

// A store that is not configured answers without a call: nothing leaves the server for it, and a purchase of a store
// configured earlier is looked at again later (never revoked for want of an answer).
const notConfigured = (store: string) => () => Effect.fail(new StoreUnreachable({ store, reason: "not configured" }))
const appStoreNotConfigured = Layer.succeed(AppStoreApi, AppStoreApi.of({
  transaction: notConfigured("app_store"),
  subscriptionStatuses: notConfigured("app_store")
}))
const playStoreNotConfigured = Layer.succeed(PlayStoreApi, PlayStoreApi.of({
  subscription: notConfigured("play_store"),
  product: notConfigured("play_store"),
  acknowledge: notConfigured("play_store"),
  consume: notConfigured("play_store")
}))

/** The catalog, the configuration, the store API clients and the signature checks, from the app's configuration. */
export const storesLayer = (stores: StoresConfig) =>
  Layer.mergeAll(
    StoreProducts.layerWith(stores.products),
    StoreConfiguration.layerWith({
      apple: Option.map(stores.apple, (apple) => ({ bundleId: apple.bundleId, environments: apple.environments })),
      google: Option.map(stores.google, (google) => ({ packageName: google.packageName }))
    }),
    Option.match(stores.apple, {
      onNone: () => appStoreNotConfigured,
      onSome: (apple) =>
        AppStoreApiHttp.layer({
          issuerId: apple.issuerId,
          keyId: apple.keyId,
          privateKey: apple.privateKey,
          bundleId: apple.bundleId,
          productionUrl: apple.productionUrl,
          sandboxUrl: apple.sandboxUrl
        })
    }),
    Option.match(stores.google, {
      onNone: () => playStoreNotConfigured,
      onSome: (google) =>
        PlayDeveloperApiHttp.layer({
          packageName: google.packageName,
          serviceAccountEmail: google.serviceAccountEmail,
          privateKey: google.privateKey,
          tokenUrl: google.tokenUrl,
          apiUrl: google.apiUrl
        })
    }),
    storeSignaturesLayer(stores)
  ).pipe(Layer.provide(FetchHttpClient.layer))
