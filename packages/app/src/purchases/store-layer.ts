import { AppStoreApiHttp } from "@atrium/adapters-http/outbound/app-store-server-api"
import { PlayDeveloperApiHttp } from "@atrium/adapters-http/outbound/play-developer-api"
import { AppStoreApi, PlayStoreApi, StoreConfiguration, StoreNotConfigured, StoreProducts } from "@atrium/domain"
import { Effect, Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import type { StoresConfig } from "./store-config.ts"
import { storeSignaturesLayer } from "./store-signatures-node.ts"

// A store that is not configured answers without a call: nothing leaves the server for it.
const appStoreNotConfigured = Layer.succeed(AppStoreApi, AppStoreApi.of({
  transaction: () => Effect.die(new StoreNotConfigured({ store: "app_store" })),
  subscriptionStatuses: () => Effect.die(new StoreNotConfigured({ store: "app_store" }))
}))
const playStoreNotConfigured = Layer.succeed(PlayStoreApi, PlayStoreApi.of({
  subscription: () => Effect.die(new StoreNotConfigured({ store: "play_store" })),
  product: () => Effect.die(new StoreNotConfigured({ store: "play_store" })),
  acknowledge: () => Effect.die(new StoreNotConfigured({ store: "play_store" }))
}))

/** The catalog, the configuration, the store API clients and the signature checks, from the app's configuration. */
export const storesLayer = (stores: StoresConfig) =>
  Layer.mergeAll(
    StoreProducts.layerFrom(stores.products),
    StoreConfiguration.layerFrom({
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
