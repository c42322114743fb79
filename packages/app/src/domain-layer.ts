import { WebhookTransportNode } from "@atrium/adapters-webhook"
import { Domain, featureCatalogOf, InvalidInput, ModelCatalog } from "@atrium/domain"
import { Duration, Effect, Layer, Option } from "effect"
import { type AppConfig, publicUrlOf } from "./app-config.ts"
import { mailerLayer } from "./mail/mailer-layer.ts"
import { aiProviderLayer } from "./ai-provider-layer.ts"
import { PasswordHasherArgon2 } from "./argon2-password-hasher.ts"
import { databaseLayer } from "./database.ts"
import { NodeDnsResolver } from "./node-dns-resolver.ts"
import { NodePrimitives } from "./node-secret-hasher.ts"
import { storesLayer } from "./purchases/store-layer.ts"
import { pushServiceLayer } from "./push-layer.ts"
import { secretBoxLayer } from "./secret-key.ts"

/** Refuses to start when a store product grants a feature the feature catalog does not know: it would unlock nothing. */
const storeProductsKnown = (config: AppConfig) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const catalog = featureCatalogOf(config.modelCatalog)
    for (const product of config.stores.products) {
      for (const feature of product.features) {
        yield* catalog.known(feature).pipe(
          Effect.mapError((unknown) => new InvalidInput({ detail: `ATRIUM_STORE_PRODUCTS: ${product.store} product "${product.productId}": ${unknown.detail}` }))
        )
      }
    }
  }))

/**
 * Every domain service over Postgres, with the configured pepper, secret key, webhook transport, AI providers, password
 * hasher, mailer, catalog, and the DNS resolver and deny list of custom domains.
 */
const layerWith = (config: AppConfig) => {
  const lease = Option.getOrUndefined(config.workLease)
  return Domain.layerWith({
    publicUrl: publicUrlOf(config),
    delivery: { ...(lease === undefined ? {} : { lease }), disableAfter: Duration.days(config.webhookDisableAfterDays) },
    aiTasks: lease === undefined ? {} : { lease },
    domains: { deniedSuffixes: config.domainDenySuffixes }
  }).pipe(
    Layer.provideMerge(storeProductsKnown(config)),
    Layer.provideMerge(
      Layer.mergeAll(
        // Migrations seal what they move with the same key and pepper as the services.
        databaseLayer(config.database, config.databaseTimeout).pipe(Layer.provideMerge(Layer.merge(NodePrimitives(config.keyPepper), secretBoxLayer(config)))),
        ModelCatalog.layerWith(config.modelCatalog),
        WebhookTransportNode.layerWith({ allowNetworks: config.webhookAllowNetworks }),
        aiProviderLayer(config),
        PasswordHasherArgon2,
        storesLayer(config.stores),
        NodeDnsResolver.layerWith({ servers: config.dnsServers, timeout: config.dnsTimeout, tries: 2 }),
        mailerLayer({ url: config.mail.url, from: config.mail.from, embedded: config.database._tag === "Embedded" }),
        pushServiceLayer(config)
      )
    )
  )
}

/** The app's composition root: `Domain.layerWith` over Postgres and the configured adapters. */
export const AppDomain = { layerWith }
