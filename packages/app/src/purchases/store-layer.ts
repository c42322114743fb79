import { StoresHttp } from "@atrium/adapters-http/outbound"
import { StoreConfiguration, StoreProducts } from "@atrium/domain"
import { Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import type { StoresConfig } from "./store-config.ts"

/** The catalog, the configuration and the stores' adapters, from the app's configuration. */
export const storesLayer = (stores: StoresConfig) =>
  Layer.mergeAll(
    StoreProducts.layerFrom(stores.products),
    StoreConfiguration.layerFrom({
      apple: Option.map(stores.apple, (apple) => ({ bundleId: apple.bundleId, environments: apple.environments })),
      google: Option.map(stores.google, (google) => ({ packageName: google.packageName }))
    }),
    StoresHttp.layer({ apple: stores.apple, google: stores.google }).pipe(Layer.provide(FetchHttpClient.layer))
  )
