import type { AppAccountToken, ProductKind, Store } from "./purchase.ts"

/** Why buying is not offered. */
export type UnavailableReason = "platform_not_supported" | "store_not_configured" | "role_forbidden" | "managed_elsewhere"

/** A product offered on the platform, and whether the workspace already owns it. */
export interface OfferedProduct {
  readonly productId: string
  readonly kind: ProductKind
  readonly features: ReadonlyArray<string>
  readonly credits: number
  readonly owned: boolean
}

/** `GET /api/mobile/purchases/availability`. */
export interface Availability {
  readonly available: boolean
  readonly reason: UnavailableReason | null
  readonly appAccountToken: AppAccountToken | null
  readonly products: ReadonlyArray<OfferedProduct>
}

/** The store a platform buys in: `ios` the App Store, `android` Google Play, anything else none. */
export const storeOf = (platform: string): Store | undefined => platform === "ios" ? "app_store" : platform === "android" ? "play_store" : undefined
