import { Context, Layer, Option, Schema } from "effect"
import { Feature } from "../entitlements/index.ts"
import { Micros } from "../shared/index.ts"
import { ProductKind, Store } from "./purchase.ts"

/** One product sold in a store: what it is and what it unlocks (features) or credits (micro-USD). */
export const StoreProduct = Schema.Struct({
  store: Store,
  productId: Schema.String.check(Schema.isBetweenLength(1, 200)),
  kind: ProductKind,
  features: Schema.Array(Feature),
  credits: Schema.optional(Micros)
}).annotate({ identifier: "StoreProduct" })
export type StoreProduct = typeof StoreProduct.Type

/** `ATRIUM_STORE_PRODUCTS`: the catalog as JSON. */
export const StoreProductsJson = Schema.Array(StoreProduct)

/** The products sold in the stores, from configuration; a product not listed is never granted anything. */
export class StoreProducts extends Context.Service<StoreProducts, {
  readonly list: (store: Store) => ReadonlyArray<StoreProduct>
  readonly find: (store: Store, productId: string) => Option.Option<StoreProduct>
}>()("@atrium/domain/StoreProducts") {
  /** A catalog of the given products. */
  static readonly layerWith = (products: ReadonlyArray<StoreProduct>) =>
    Layer.succeed(StoreProducts, StoreProducts.of({
      list: (store) => products.filter((product) => product.store === store),
      find: (store, productId) => Option.fromNullishOr(products.find((product) => product.store === store && product.productId === productId))
    }))

  /** Decodes the catalog from its JSON form (for tests and the CLI). */
  static readonly decode = Schema.decodeUnknownEffect(StoreProductsJson)
}

/** Reads a catalog entry's credits, zero when it has none. */
export const creditsOf = (product: StoreProduct): number => product.credits ?? 0
