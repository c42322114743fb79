import { WebhookTransportNode } from "@atrium/adapters-webhook"
import {
  aiServices,
  customDomainServices,
  defaultDeliveryPolicy,
  defaultDomainPolicy,
  domainServices,
  EngagementServices,
  identityServices,
  ModelCatalog,
  ScheduleServices
} from "@atrium/domain"
import { Duration, Layer } from "effect"
import type { AppConfig } from "./app-config.ts"
import { aiProviderLayer } from "./ai-provider-layer.ts"
import { PasswordHasherArgon2 } from "./argon2-password-hasher.ts"
import { databaseLayer } from "./database.ts"
import { NodeDnsResolver } from "./node-dns-resolver.ts"
import { NodePrimitives } from "./node-secret-hasher.ts"
import { pushServiceLayer } from "./push-layer.ts"
import { secretBoxLayer } from "./secret-key.ts"

/**
 * Every domain service over Postgres, with the configured pepper, secret key, webhook transport, AI providers, password
 * hasher, catalog, and the DNS resolver and deny list of custom domains.
 */
export const domainLayer = (config: AppConfig) => {
  const ai = aiServices()
  return Layer.mergeAll(
    domainServices({ ...defaultDeliveryPolicy, disableAfter: Duration.days(config.webhookDisableAfterDays) }),
    ai,
    identityServices(),
    EngagementServices,
    // Schedules fire through the same AI task service.
    ScheduleServices.pipe(Layer.provide(ai)),
    customDomainServices({ ...defaultDomainPolicy, deniedSuffixes: config.domainDenySuffixes })
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        databaseLayer(config.database),
        NodePrimitives(config.keyPepper),
        ModelCatalog.layerFrom(config.modelCatalog),
        secretBoxLayer(config),
        WebhookTransportNode.layer({ allowNetworks: config.webhookAllowNetworks }),
        aiProviderLayer(config),
        PasswordHasherArgon2,
        NodeDnsResolver.layer({ servers: config.dnsServers, timeout: config.dnsTimeout, tries: 2 }),
        pushServiceLayer(config)
      )
    )
  )
}
