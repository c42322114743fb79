import { Layer, Option, type Redacted } from "effect"
import { AiTasks, type AiTaskPolicy, defaultAiTaskPolicy } from "./ai-tasks.ts"
import { Accounts } from "./accounts.ts"
import { ApiKeys } from "./api-keys.ts"
import { Appearance } from "./appearances.ts"
import { AuditTrail } from "./audit-trail.ts"
import { Invitations } from "./invitations.ts"
import { Members } from "./members.ts"
import { Organization } from "./organization.ts"
import { defaultSessionPolicy, type SessionPolicy } from "./session.ts"
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

/**
 * Accounts, sessions, members, invitations, organization, appearance and the audit trail. Besides the ports of
 * `domainServices` they need `UserRepository`, `MembershipRepository`, `SessionRepository`, `InvitationRepository`,
 * `AppearanceRepository` and `PasswordHasher`; kept apart so compositions that lack those still build.
 */
export const identityServices = (policy: SessionPolicy = defaultSessionPolicy) =>
  Layer.mergeAll(Accounts.layerWith(policy), Members.layer, Invitations.layer, Organization.layer, Appearance.layer, AuditTrail.layer)

/** The identity services with 15-minute access and 30-day refresh tokens. */
export const IdentityServices = identityServices()

/** Randomness, ids and hashing, with an optional server pepper for secret digests. */
export const Primitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Layer.mergeAll(IdGenerator.layer, SecretHasher.layer(pepper)).pipe(Layer.provideMerge(SecureRandom.layer))

export { ModelCatalog }
