import { Effect, Layer, Option } from "effect"
import { Digest, Mac, SecureRandom as CryptoRandom } from "effect/crypto"
import { AiTasks, type AiTaskPolicy, aiWork, defaultAiTaskPolicy, ModelCatalog, type ModelSpec, modelFeatures } from "./ai/index.ts"
import { AuditTrail, ChangeLog, EventSubscribers } from "./audit/index.ts"
import { Usage } from "./billing/index.ts"
import { CustomDomains, customDomainFeatures, defaultDomainPolicy, type DomainPolicy, domainWork } from "./domains/index.ts"
import { FeatureCatalog, Entitlements, makeFeatureCatalog } from "./entitlements/index.ts"
import { FeatureRequests } from "./feedback/index.ts"
import {
  AccountTokens,
  Accounts,
  Appearance,
  defaultSessionPolicy,
  EmailVerification,
  identityWork,
  Invitations,
  MembershipCache,
  Members,
  Organization,
  PasswordReset,
  SessionCache,
  type SessionPolicy
} from "./identity/index.ts"
import { ApiKeys } from "./keys/index.ts"
import { defaultMailPolicy, MailDelivery, MailOutbox, type MailPolicy, mailWork } from "./mail/index.ts"
import { PushFanOut, PushNotifications, PushSender, pushWork } from "./notifications/index.ts"
import { purchaseWork, Purchases } from "./purchases/index.ts"
import { RequestLogs } from "./request-logs/index.ts"
import { ScheduleReactions, type SchedulePolicy, Schedules, scheduleWork } from "./schedules/index.ts"
import { IdGenerator, SecretHasher, SecureRandom, type Work } from "./shared/index.ts"
import { defaultDeliveryPolicy, type DeliveryPolicy, WebhookDeliveries, WebhookEndpoints, WebhookFanOut, webhookWork } from "./webhooks/index.ts"
import { Workspaces } from "./workspaces/index.ts"

// One change log for the whole domain (a module constant, so every service's layer shares the one instance), with its
// subscribers: the webhook and push fan-outs and the schedules' reactions to members and task outcomes.
const changeLog = ChangeLog.layer.pipe(
  Layer.provide(EventSubscribers.layerWith(Effect.gen(function*() {
    return [(yield* WebhookFanOut).subscriber, (yield* PushFanOut).subscriber, (yield* ScheduleReactions).subscriber]
  }))),
  Layer.provideMerge(Layer.mergeAll(WebhookFanOut.layer, PushFanOut.layer, ScheduleReactions.layer))
)

/** The feature catalog of a model catalog: every area's contribution (the models' required features, custom domains). */
export const featureCatalogOf = (models: ReadonlyArray<ModelSpec>) => makeFeatureCatalog([modelFeatures(models), customDomainFeatures])

const featureCatalog = Layer.effect(
  FeatureCatalog,
  Effect.gen(function*() {
    return FeatureCatalog.of(featureCatalogOf(yield* (yield* ModelCatalog).list))
  })
)

/** How a host tunes the domain: the base of links in mail, and any policy it changes from its default. */
export interface DomainOptions {
  /** The base of every link in a message (`ATRIUM_PUBLIC_URL`). */
  readonly publicUrl: string
  readonly delivery?: Partial<DeliveryPolicy> | undefined
  readonly aiTasks?: Partial<AiTaskPolicy> | undefined
  readonly sessions?: Partial<SessionPolicy> | undefined
  readonly mail?: Partial<MailPolicy> | undefined
  readonly domains?: Partial<DomainPolicy> | undefined
  readonly schedules?: SchedulePolicy | undefined
}

const layerWith = (options: DomainOptions) => {
  const withChanges = Layer.provide(changeLog)
  // Built once: usage is shared, and schedules fire through the same AI task service.
  const ai = Layer.mergeAll(AiTasks.layerWith({ ...defaultAiTaskPolicy, ...options.aiTasks }), Usage.layer).pipe(withChanges)
  const identity = Layer.mergeAll(
    Accounts.layerWith({ ...defaultSessionPolicy, ...options.sessions }),
    Members.layer,
    Invitations.layer,
    Organization.layer,
    Appearance.layer,
    AuditTrail.layer,
    EmailVerification.layer,
    PasswordReset.layer
  ).pipe(
    withChanges,
    Layer.provideMerge(AccountTokens.layer.pipe(Layer.provideMerge(MailOutbox.layer), withChanges)),
    // Verified sessions and each user's workspaces for at most 1 s, like API keys; every service here changes sessions
    // and memberships through these caches, so its own changes show at once.
    Layer.provide(Layer.mergeAll(SessionCache, MembershipCache))
  )
  const core = Layer.mergeAll(
    ApiKeys.layer,
    Workspaces.layer,
    Entitlements.layer,
    WebhookEndpoints.layer,
    WebhookDeliveries.layerWith({ ...defaultDeliveryPolicy, ...options.delivery })
  ).pipe(withChanges, Layer.provideMerge(featureCatalog))
  const schedules = options.schedules === undefined ? Schedules.layer : Schedules.layerWith(options.schedules)
  return Purchases.layer.pipe(
    withChanges,
    Layer.provideMerge(Layer.mergeAll(
      core,
      ai,
      identity,
      Layer.mergeAll(FeatureRequests.layer, PushNotifications.layer, PushSender.layer).pipe(withChanges),
      RequestLogs.layer,
      schedules.pipe(withChanges, Layer.provide(ai)),
      MailDelivery.layerWith({ ...defaultMailPolicy(options.publicUrl), ...options.mail }),
      CustomDomains.layerWith({ ...defaultDomainPolicy, ...options.domains }).pipe(withChanges),
      changeLog
    ))
  )
}

/**
 * The composition root: every domain service of every area, wired once. A host provides the ports (storage, transactor,
 * webhook transport, AI provider, mailer, stores, DNS, password hasher, secret box), the `Primitives` and the
 * `ModelCatalog`: Postgres and real adapters in the app, memory ones in `@atrium/domain/testing` (`Domain.layerMemory`).
 */
export const Domain = {
  /** The domain with `options`' policies (defaults for any left out). */
  layerWith,
  /** The one worker registry: every area's background work, which every host process runs (leases share it out). */
  work: Effect.map(
    Effect.all([webhookWork, aiWork, scheduleWork, mailWork, identityWork, domainWork, purchaseWork, pushWork]),
    (works): ReadonlyArray<Work> => works.flat()
  )
}

// Web Crypto's `Mac` for the peppered digests; a host with a pepper brings its own `SecretHasher` (the app's is on node:crypto).
const webCryptoMac = Mac.layerWebCrypto.pipe(Layer.provide(CryptoRandom.layerWebCrypto))

/** Randomness, ids and hashing (Web Crypto: plain SHA-256 digests of secrets, and `Digest`), which every domain service builds on. */
export const Primitives = {
  layer: Layer.mergeAll(IdGenerator.layer, SecretHasher.layer(Option.none()).pipe(Layer.provide(webCryptoMac))).pipe(
    Layer.provideMerge(Digest.layerWebCrypto),
    Layer.provideMerge(SecureRandom.layer)
  )
}
