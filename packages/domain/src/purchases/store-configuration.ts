import { Context, Layer, Option } from "effect"
import type { Store, StoreEnvironment } from "./purchase.ts"

/** The App Store side of the configuration. */
export interface AppleStoreSettings {
  readonly bundleId: string
  /** Environments whose transactions and notifications are accepted (production only unless configured). */
  readonly environments: ReadonlyArray<StoreEnvironment>
}

/** The Google Play side of the configuration. */
export interface GoogleStoreSettings {
  readonly packageName: string
}

/** Which stores this server sells through; a store that is not configured is never called. */
export class StoreConfiguration extends Context.Service<StoreConfiguration, {
  readonly apple: Option.Option<AppleStoreSettings>
  readonly google: Option.Option<GoogleStoreSettings>
}>()("@atrium/domain/StoreConfiguration") {
  /** The given settings. */
  static readonly layerWith = (settings: { readonly apple: Option.Option<AppleStoreSettings>; readonly google: Option.Option<GoogleStoreSettings> }) =>
    Layer.succeed(StoreConfiguration, StoreConfiguration.of(settings))
}

/** Whether `store` is configured. */
export const isConfigured = (configuration: StoreConfiguration["Service"], store: Store): boolean =>
  store === "app_store" ? Option.isSome(configuration.apple) : Option.isSome(configuration.google)
