import { WebhookTransportNode } from "@atrium/adapters-webhook"
import { AiProvider, aiServices, defaultDeliveryPolicy, domainServices, ModelCatalog, Primitives } from "@atrium/domain"
import { Duration, Layer } from "effect"
import type { AppConfig } from "./app-config.ts"
import { databaseLayer } from "./database.ts"
import { secretBoxLayer } from "./secret-key.ts"

/** The domain services over Postgres, with the configured pepper, secret key, webhook transport and model catalog. */
export const domainLayer = (config: AppConfig) =>
  Layer.mergeAll(
    domainServices({ ...defaultDeliveryPolicy, disableAfter: Duration.days(config.webhookDisableAfterDays) }),
    aiServices()
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        databaseLayer(config.database),
        Primitives(config.keyPepper),
        ModelCatalog.layerFrom(config.modelCatalog),
        secretBoxLayer(config),
        WebhookTransportNode.layer({ allowNetworks: config.webhookAllowNetworks }),
        AiProvider.layerLocal
      )
    )
  )
