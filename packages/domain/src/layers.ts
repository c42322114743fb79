import { Layer, Option, type Redacted } from "effect"
import { AiTasks, type AiTaskPolicy, defaultAiTaskPolicy } from "./ai-tasks.ts"
import { ApiKeys } from "./api-keys.ts"
import { Entitlements } from "./entitlements.ts"
import { IdGenerator } from "./id-generator.ts"
import { ModelCatalog } from "./model-catalog.ts"
import { SecretHasher } from "./secret-hasher.ts"
import { SecureRandom } from "./secure-random.ts"
import { Usage } from "./usage.ts"
import { defaultDeliveryPolicy, type DeliveryPolicy, WebhookDeliveries } from "./webhook-deliveries.ts"
import { WebhookEndpoints } from "./webhook-endpoints.ts"
import { Workspaces } from "./workspaces.ts"

/** The domain services; they need the ports (repositories, transactor, webhook transport, secret box) and the primitives below. */
export const domainServices = (policy: DeliveryPolicy = defaultDeliveryPolicy) =>
  Layer.mergeAll(ApiKeys.layer, Workspaces.layer, Entitlements.layer, WebhookEndpoints.layer, WebhookDeliveries.layerWith(policy))

/** The domain services with the default delivery policy. */
export const DomainServices = domainServices()

/**
 * AI tasks and usage; they need, besides the ports above, `AiTaskRepository`, `BillingRepository`, `AiProvider` and
 * `ModelCatalog`. Kept apart from `domainServices` until every composition (Postgres, app) provides those ports.
 */
export const aiServices = (policy: AiTaskPolicy = defaultAiTaskPolicy) => Layer.mergeAll(AiTasks.layerWith(policy), Usage.layer)

/** AI tasks and usage with the default task policy. */
export const AiServices = aiServices()

/** Randomness, ids and hashing, with an optional server pepper for secret digests. */
export const Primitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Layer.mergeAll(IdGenerator.layer, SecretHasher.layer(pepper)).pipe(Layer.provideMerge(SecureRandom.layer))

export { ModelCatalog }
