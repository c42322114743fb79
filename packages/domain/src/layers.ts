import { Effect, Layer, Option, type Redacted } from "effect"
import { AiTasks, type AiTaskPolicy, defaultAiTaskPolicy, ModelCatalog, type ModelSpec, modelFeatures } from "./ai/index.ts"
import { Accounts } from "./identity/index.ts"
import { ApiKeys } from "./keys/index.ts"
import { Appearance } from "./identity/index.ts"
import { AuditTrail, ChangeLog, EventSubscribers } from "./audit/index.ts"
import { Invitations } from "./identity/index.ts"
import { Members } from "./identity/index.ts"
import { Organization } from "./identity/index.ts"
import { defaultSessionPolicy, MembershipCache, SessionCache, type SessionPolicy } from "./identity/index.ts"
import { CustomDomains, customDomainFeatures, defaultDomainPolicy, type DomainPolicy } from "./domains/index.ts"
import { Entitlements, FeatureCatalog, makeFeatureCatalog } from "./entitlements/index.ts"
import { IdGenerator } from "./shared/index.ts"
import { SecretHasher } from "./shared/index.ts"
import { SecureRandom } from "./shared/index.ts"
import { Usage } from "./billing/index.ts"
import { defaultDeliveryPolicy, type DeliveryPolicy, WebhookDeliveries } from "./webhooks/index.ts"
import { WebhookEndpoints, WebhookFanOut } from "./webhooks/index.ts"
import { FeatureRequests } from "./feedback/index.ts"
import { PushFanOut, PushNotifications, PushSender } from "./notifications/index.ts"
import { Workspaces } from "./workspaces/index.ts"
import { ScheduleReactions, Schedules } from "./schedules/index.ts"
import { AccountTokens, EmailVerification, PasswordReset } from "./identity/index.ts"
import { MailDelivery, MailOutbox, type MailPolicy } from "./mail/index.ts"
import { Purchases } from "./purchases/index.ts"
import { RequestLogs } from "./request-logs/index.ts"

/**
 * The change log and its subscribers (the webhook and push fan-outs, the schedules' reactions to members and task
 * outcomes); every service that changes state records through it.
 */
export const ChangeLogLive = ChangeLog.layer.pipe(
  Layer.provide(EventSubscribers.layerFrom(Effect.gen(function*() {
    return [(yield* WebhookFanOut).subscriber, (yield* PushFanOut).subscriber, (yield* ScheduleReactions).subscriber]
  }))),
  Layer.provideMerge(Layer.mergeAll(WebhookFanOut.layer, PushFanOut.layer, ScheduleReactions.layer))
)

/** The feature catalog of a model catalog: every area's contribution (the models' required features, custom domains). */
export const featureCatalogOf = (models: ReadonlyArray<ModelSpec>) => makeFeatureCatalog([modelFeatures(models), customDomainFeatures])

/** The feature catalog over the `ModelCatalog` in use. */
export const FeatureCatalogLive = Layer.effect(
  FeatureCatalog,
  Effect.gen(function*() {
    return FeatureCatalog.of(featureCatalogOf(yield* (yield* ModelCatalog).list))
  })
)

/**
 * The domain services and the feature catalog; they need the ports (repositories, transactor, webhook transport, secret
 * box), the primitives below and the `ModelCatalog`.
 */
export const domainServices = (policy: DeliveryPolicy = defaultDeliveryPolicy) =>
  Layer.mergeAll(ApiKeys.layer, Workspaces.layer, Entitlements.layer, WebhookEndpoints.layer, WebhookDeliveries.layerWith(policy)).pipe(
    Layer.provide(ChangeLogLive),
    Layer.provideMerge(FeatureCatalogLive)
  )

/** The domain services with the default delivery policy. */
export const DomainServices = domainServices()

/**
 * AI tasks and usage; they need, besides the ports above, `AiTaskRepository`, `BillingRepository`, `AiProvider` and
 * `ModelCatalog`. Kept apart from `domainServices` until every composition (Postgres, app) provides those ports.
 */
export const aiServices = (policy: AiTaskPolicy = defaultAiTaskPolicy) => Layer.mergeAll(AiTasks.layerWith(policy), Usage.layer).pipe(Layer.provide(ChangeLogLive))

/** AI tasks and usage with the default task policy. */
export const AiServices = aiServices()

/**
 * The mail outbox the identity flows write to, and the one-time account tokens it carries; needs the `ChangeLog` its
 * requests are audited through.
 */
export const AccountMailLive = AccountTokens.layer.pipe(Layer.provideMerge(MailOutbox.layer))

/**
 * Schedules (they fire through `AiTasks`); besides the ports above they need `ScheduleRepository`. The policy comes
 * from `CurrentSchedulePolicy` (its default unless a composition provides another).
 */
export const ScheduleServices = Schedules.layer.pipe(Layer.provide(ChangeLogLive))

/**
 * Accounts, sessions, members, invitations, organization, appearance, email verification, password reset and the
 * audit trail. Besides the ports of `domainServices` they need `UserRepository`, `MembershipRepository`,
 * `SessionRepository`, `InvitationRepository`, `AppearanceRepository`, `AccountTokenRepository`, `MailRepository` and
 * `PasswordHasher`; kept apart so compositions that lack those still build.
 */
export const identityServices = (policy: SessionPolicy = defaultSessionPolicy) =>
  Layer.mergeAll(
    Accounts.layerWith(policy),
    Members.layer,
    Invitations.layer,
    Organization.layer,
    Appearance.layer,
    AuditTrail.layer,
    EmailVerification.layer,
    PasswordReset.layer
  ).pipe(
    Layer.provide(ChangeLogLive),
    Layer.provideMerge(AccountMailLive.pipe(Layer.provide(ChangeLogLive))),
    // Verified sessions and each user's workspaces for at most 1 s, like API keys; every service here changes sessions
    // and memberships through these caches, so its own changes show at once.
    Layer.provide(Layer.mergeAll(SessionCache, MembershipCache))
  )

/** The sending side of mail (claims, renders, sends, records); needs `MailRepository`, `Mailer` and `SecretBox`. */
export const mailServices = (policy: MailPolicy) => MailDelivery.layerWith(policy)

/** The identity services with 15-minute access and 30-day refresh tokens. */
export const IdentityServices = identityServices()

/**
 * Custom domains; besides the ports of `domainServices` they need `DomainRepository` and `DnsResolver`. Kept apart so
 * compositions that lack those still build.
 */
export const customDomainServices = (policy: DomainPolicy = defaultDomainPolicy) => CustomDomains.layerWith(policy).pipe(Layer.provide(ChangeLogLive))

/** Custom domains with the default policy. */
export const CustomDomainServices = customDomainServices()

/**
 * In-app purchases. Besides the ports above they need `PurchaseRepository`, `NotificationInbox`, the `Stores` port,
 * `StoreProducts`, and the `Entitlements` and `Usage` services.
 */
export const PurchaseServices = Purchases.layer.pipe(Layer.provide(ChangeLogLive))

/** Randomness, ids and hashing, with an optional server pepper for secret digests. */
export const Primitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Layer.mergeAll(IdGenerator.layer, SecretHasher.layer(pepper)).pipe(Layer.provideMerge(SecureRandom.layer))


/**
 * The feature-request board, push devices and preferences, and the push sender. They need `FeatureRequestRepository`,
 * `PushDeviceRepository`, `PushMessageRepository` and, to send anything, a `PushService` (disabled when absent).
 */
export const EngagementServices = Layer.mergeAll(FeatureRequests.layer, PushNotifications.layer, PushSender.layer).pipe(Layer.provide(ChangeLogLive))

/** The request logs of `/api/v1` (read by admins, written and pruned by the host); they need `RequestLogRepository`. */
export const RequestLogServices = RequestLogs.layer
