import { StoresHttp } from "@atrium/adapters-http/outbound"
import { StoreProducts } from "@atrium/domain"
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { StoresConfig } from "./store-config.ts"

/** The catalog and the stores' adapters (which say what is configured), from the app's configuration. */
export const storesLayer = (stores: StoresConfig) =>
  Layer.mergeAll(
    StoreProducts.layerWith(stores.products),
    StoresHttp.layer({ apple: stores.apple, google: stores.google }).pipe(Layer.provide(FetchHttpClient.layer))
  )
