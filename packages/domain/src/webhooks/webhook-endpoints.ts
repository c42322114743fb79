import { Context, DateTime, Duration, Effect, Layer, Option, type Redacted } from "effect"
import { type Acting, actorOf, type Forbidden, type InsufficientScope, permits, type Principal } from "../access/index.ts"
import { eventDefinitions, WebhookEvents } from "./webhook-events.ts"
import { exampleEvent } from "./event-example.ts"
import { WebhookFanOut } from "./webhook-fan-out.ts"
import { ChangeLog, type DomainEvent, type EmittedEvent, emit, EventOutbox, type EventPayload } from "../audit/index.ts"
import { type Actor, Conflict, InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { DeliveryId, type WebhookEndpointId, WebhookEndpointId as EndpointIdSchema, type WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { DeliveryRepository } from "./delivery-repository.ts"
import { decodeInput, Transactor } from "../shared/index.ts"
import { WebhookEndpointRepository } from "./webhook-endpoint-repository.ts"
import { WebhookTransport } from "./webhook-transport.ts"
import { SecretBox } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"
import { type DeliveryAttempt, type DeliveryStatus, WebhookDelivery } from "./webhook-delivery.ts"
import { EndpointSecret, maxEndpointsPerWorkspace, WebhookDescription, WebhookEndpoint, WebhookUrl } from "./webhook-endpoint.ts"
import type { EventType } from "./webhook-events.ts"
import { mintSigningSecret } from "./webhook-signature.ts"

/** What subscribing an endpoint needs. */
export interface CreateEndpointInput {
  readonly url: string
  readonly description?: string | undefined
  readonly eventTypes?: ReadonlyArray<EventType> | null | undefined
}

/** A partial change of an endpoint; absent fields stay as they are. */
export interface UpdateEndpointInput {
  readonly url?: string | undefined
  readonly description?: string | undefined
  /** `null` subscribes to every event type. */
  readonly eventTypes?: ReadonlyArray<EventType> | null | undefined
  readonly enabled?: boolean | undefined
}

/** An endpoint and its signing secret, returned only by create and rotate-secret. */
export interface EndpointWithSecret {
  readonly endpoint: WebhookEndpoint
  readonly secret: Redacted.Redacted<string>
}

/** Default and longest grace period during which the previous secret still signs after a rotation. */
export const rotationGrace = { default: Duration.hours(24), maximum: Duration.days(7) } as const
/** How far back a recovery may reach. */
export const recoveryWindow = Duration.days(14)

const decodeUrl = decodeInput(WebhookUrl, "url")
const decodeDescription = decodeInput(WebhookDescription, "description")

/** Refusals of the access policy: every operation acts as a principal, in its workspace, under `permits`. */
export type Refused = Forbidden | InsufficientScope

/**
 * Webhook subscriptions: endpoints, secrets, tests, deliveries, replay and recovery. Every operation acts in the
 * principal's workspace and asks the access policy itself (`webhooks.read` / `webhooks.write`), whoever calls it.
 */
export class WebhookEndpoints extends Context.Service<WebhookEndpoints, {
  readonly create: (principal: Principal, input: CreateEndpointInput) => Effect.Effect<EndpointWithSecret, Refused | Conflict | InvalidInput | Unavailable>
  readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<WebhookEndpoint>, Refused | Unavailable>
  readonly get: (principal: Principal, id: WebhookEndpointId) => Effect.Effect<WebhookEndpoint, Refused | NotFound | Unavailable>
  readonly update: (
    principal: Principal,
    id: WebhookEndpointId,
    patch: UpdateEndpointInput
  ) => Effect.Effect<WebhookEndpoint, Refused | NotFound | InvalidInput | Unavailable>
  readonly remove: (principal: Principal, id: WebhookEndpointId) => Effect.Effect<void, Refused | NotFound | Unavailable>
  readonly rotateSecret: (
    principal: Acting,
    id: WebhookEndpointId,
    grace: Duration.Duration | undefined
  ) => Effect.Effect<EndpointWithSecret, Refused | NotFound | InvalidInput | Unavailable>
  /**
   * Sends `webhook.test` — or an example event of `eventType`, made from its payload schema — to this endpoint only;
   * returns the pending delivery.
   */
  readonly sendTest: (
    principal: Principal,
    id: WebhookEndpointId,
    eventType?: EventType | undefined
  ) => Effect.Effect<WebhookDelivery, Refused | NotFound | Conflict | InvalidInput | Unavailable>
  readonly deliveries: (
    principal: Principal,
    id: WebhookEndpointId,
    status: DeliveryStatus | undefined,
    page: PageRequest
  ) => Effect.Effect<Page<WebhookDelivery>, Refused | NotFound | Unavailable>
  readonly delivery: (
    principal: Principal,
    id: DeliveryId
  ) => Effect.Effect<{
    readonly delivery: WebhookDelivery
    readonly attempts: ReadonlyArray<DeliveryAttempt>
    /** The event the delivery carries (what its body is made of). */
    readonly event: Option.Option<DomainEvent>
  }, Refused | NotFound | Unavailable>
  /** A new attempt chain for one delivery, with the same event (and so the same `webhook-id`). */
  readonly replay: (principal: Principal, id: DeliveryId) => Effect.Effect<WebhookDelivery, Refused | NotFound | Unavailable>
  /** Replays every failed delivery of an endpoint created since `since` (at most 14 days back). */
  readonly recover: (
    principal: Principal,
    id: WebhookEndpointId,
    since: DateTime.Utc
  ) => Effect.Effect<ReadonlyArray<WebhookDelivery>, Refused | NotFound | InvalidInput | Unavailable>
  /** The workspace's events, newest first: what was (or would be) delivered. */
  readonly events: (principal: Principal, page: PageRequest) => Effect.Effect<Page<DomainEvent>, Refused | Unavailable>
}>()("@atrium/domain/WebhookEndpoints") {
  static readonly layer = Layer.effect(
    WebhookEndpoints,
    Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointRepository
      const deliveries = yield* DeliveryRepository
      const outbox = yield* EventOutbox
      const tx = yield* Transactor
      const ids = yield* IdGenerator
      const box = yield* SecretBox
      const transport = yield* WebhookTransport
      const random = yield* SecureRandom
      const changes = yield* ChangeLog
      const fanOut = yield* WebhookFanOut

      const find = Effect.fnUntraced(function*(workspaceId: WorkspaceId, id: WebhookEndpointId) {
        const found = yield* endpoints.findById(workspaceId, id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "webhook_endpoint" })
        return found.value
      })

      // The SSRF guard runs when a URL is saved, and again at every attempt. The caller learns that the URL is not
      // allowed, never which internal address its host resolved to: that goes to the server log only.
      const checkUrl = Effect.fnUntraced(function*(url: string) {
        const valid = yield* decodeUrl(url)
        const verdict = yield* transport.checkDestination(valid)
        if (verdict._tag === "Refused") {
          yield* Effect.logWarning("webhook url refused by the SSRF guard").pipe(
            Effect.annotateLogs({ reason: verdict.reason, detail: verdict.detail ?? verdict.reason })
          )
          return yield* new InvalidInput({ detail: `url refused: ${verdict.reason}` })
        }
        return valid
      })

      const newSecret = Effect.fnUntraced(function*(endpointId: WebhookEndpointId, now: DateTime.Utc) {
        const secret = yield* mintSigningSecret().pipe(Effect.provideService(SecureRandom, random))
        const stored = new EndpointSecret({ endpointId, sealed: yield* box.seal(secret), createdAt: now, expiresAt: Option.none() })
        return { secret, stored }
      })

      const newDelivery = Effect.fnUntraced(function*(from: WebhookDelivery, now: DateTime.Utc) {
        return new WebhookDelivery({
          ...from,
          id: DeliveryId.make(yield* ids.make("msg")),
          status: "pending",
          attemptCount: 0,
          nextAttemptAt: Option.some(now),
          lastStatusCode: Option.none(),
          replayOf: Option.some(from.id),
          createdAt: now,
          updatedAt: now
        })
      })

      const create = Effect.fn("WebhookEndpoints.create")(function*(principal: Principal, input: CreateEndpointInput) {
        yield* permits(principal, "webhooks.write")
        const workspaceId = principal.workspaceId
        const url = yield* checkUrl(input.url)
        const description = yield* decodeDescription(input.description ?? "")
        const now = yield* DateTime.now
        const endpoint = new WebhookEndpoint({
          id: EndpointIdSchema.make(yield* ids.make("whe")),
          workspaceId,
          url,
          description,
          eventTypes: Option.fromNullishOr(input.eventTypes),
          enabled: true,
          disabledReason: Option.none(),
          failingSince: Option.none(),
          createdAt: now,
          updatedAt: now
        })
        const { secret, stored } = yield* newSecret(endpoint.id, now)
        yield* tx.withTransaction(Effect.gen(function*() {
          if ((yield* endpoints.count(workspaceId)) >= maxEndpointsPerWorkspace) {
            return yield* new Conflict({ detail: `a workspace may have at most ${maxEndpointsPerWorkspace} webhook endpoints` })
          }
          yield* endpoints.insert(endpoint)
          yield* endpoints.addSecret(stored)
          yield* changes.record({ workspaceId, actor: actorOf(principal), action: "webhook_endpoint.created", target: endpoint.id })
        }))
        const created: EndpointWithSecret = { endpoint, secret }
        return created
      })

      const list = Effect.fn("WebhookEndpoints.list")(function*(principal: Principal, page: PageRequest) {
        yield* permits(principal, "webhooks.read")
        return yield* endpoints.list(principal.workspaceId, page)
      })

      const get = Effect.fn("WebhookEndpoints.get")(function*(principal: Principal, id: WebhookEndpointId) {
        yield* permits(principal, "webhooks.read")
        return yield* find(principal.workspaceId, id)
      })

      const update = Effect.fn("WebhookEndpoints.update")(
        function*(principal: Principal, id: WebhookEndpointId, patch: UpdateEndpointInput) {
          yield* permits(principal, "webhooks.write")
          const { workspaceId } = principal
          const actor = actorOf(principal)
          if (patch.url !== undefined) yield* checkUrl(patch.url)
          if (patch.description !== undefined) yield* decodeDescription(patch.description)
          return yield* tx.withTransaction(Effect.gen(function*() {
            const current = yield* find(workspaceId, id)
            const enabling = patch.enabled === true && !current.enabled
            const disabling = patch.enabled === false && current.enabled
            const updated = new WebhookEndpoint({
              ...current,
              url: patch.url ?? current.url,
              description: patch.description ?? current.description,
              eventTypes: patch.eventTypes === undefined ? current.eventTypes : Option.fromNullishOr(patch.eventTypes),
              enabled: patch.enabled ?? current.enabled,
              disabledReason: enabling ? Option.none() : disabling ? Option.some("disabled by a person") : current.disabledReason,
              failingSince: enabling ? Option.none() : current.failingSince,
              updatedAt: yield* DateTime.now
            })
            yield* endpoints.update(updated)
            yield* changes.record({ workspaceId, actor, action: "webhook_endpoint.updated", target: id })
            return updated
          }))
        }
      )

      const remove = Effect.fn("WebhookEndpoints.remove")(function*(principal: Principal, id: WebhookEndpointId) {
        yield* permits(principal, "webhooks.write")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        yield* tx.withTransaction(Effect.gen(function*() {
          if (!(yield* endpoints.delete(workspaceId, id))) return yield* new NotFound({ resource: "webhook_endpoint" })
          yield* changes.record({ workspaceId, actor, action: "webhook_endpoint.deleted", target: id })
        }))
      })

      // The rotation itself; callers have already been allowed (a principal's permission, or the operator).
      const rotate = Effect.fnUntraced(function*(workspaceId: WorkspaceId, id: WebhookEndpointId, grace: Duration.Duration | undefined, actor: Actor) {
        const period = grace ?? rotationGrace.default
        if (Duration.isGreaterThan(period, rotationGrace.maximum)) {
          return yield* new InvalidInput({ detail: "the grace period may be at most 7 days" })
        }
        return yield* tx.withTransaction(Effect.gen(function*() {
          const endpoint = yield* find(workspaceId, id)
          const now = yield* DateTime.now
          yield* endpoints.expireSecrets(id, DateTime.addDuration(now, period))
          const { secret, stored } = yield* newSecret(id, now)
          yield* endpoints.addSecret(stored)
          yield* changes.record({ workspaceId, actor, action: "webhook_endpoint.secret_rotated", target: id })
          const rotated: EndpointWithSecret = { endpoint, secret }
          return rotated
        }))
      })

      const rotateSecret = Effect.fn("WebhookEndpoints.rotateSecret")(
        function*(principal: Acting, id: WebhookEndpointId, grace: Duration.Duration | undefined) {
          yield* permits(principal, "webhooks.write")
          return yield* rotate(principal.workspaceId, id, grace, actorOf(principal))
        }
      )

      const sendTest = Effect.fn("WebhookEndpoints.sendTest")(function*(principal: Principal, id: WebhookEndpointId, eventType?: EventType | undefined) {
        yield* permits(principal, "webhooks.write")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        const definition = eventDefinitions.find((candidate) => candidate.type === (eventType ?? WebhookEvents.test.type))
        const example: Option.Option<EmittedEvent<string, EventPayload>> = eventType === undefined || eventType === WebhookEvents.test.type || definition === undefined
          ? Option.some(emit(WebhookEvents.test, { message: "This is a test event from Atrium.", endpointId: id }, { notify: false }))
          : exampleEvent(definition)
        if (Option.isNone(example)) return yield* new InvalidInput({ detail: `No example can be made for ${eventType}` })
        return yield* tx.withTransaction(Effect.gen(function*() {
          const endpoint = yield* find(workspaceId, id)
          if (!endpoint.enabled) return yield* new Conflict({ detail: "the endpoint is disabled; enable it first" })
          // A test event reaches this endpoint only, so it is kept from the fan-out and delivered here.
          const recorded = yield* changes.record({
            workspaceId,
            actor,
            action: "webhook_endpoint.tested",
            target: id,
            event: example.value
          })
          if (Option.isNone(recorded)) return yield* Effect.die(new Error("the test event was not recorded"))
          const [sent] = yield* fanOut.deliverTo(recorded.value, [id])
          if (sent === undefined) return yield* Effect.die(new Error("the test delivery was not enqueued"))
          return sent
        }))
      })

      const deliveriesOf = Effect.fn("WebhookEndpoints.deliveries")(
        function*(principal: Principal, id: WebhookEndpointId, status: DeliveryStatus | undefined, page: PageRequest) {
          yield* permits(principal, "webhooks.read")
          yield* find(principal.workspaceId, id)
          return yield* deliveries.listByEndpoint(principal.workspaceId, id, status, page)
        }
      )

      const delivery = Effect.fn("WebhookEndpoints.delivery")(function*(principal: Principal, id: DeliveryId) {
        yield* permits(principal, "webhooks.read")
        const found = yield* deliveries.findById(principal.workspaceId, id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "webhook_delivery" })
        return { delivery: found.value, attempts: yield* deliveries.attempts(id), event: yield* outbox.findById(principal.workspaceId, found.value.eventId) }
      })

      const replay = Effect.fn("WebhookEndpoints.replay")(function*(principal: Principal, id: DeliveryId) {
        yield* permits(principal, "webhooks.write")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const found = yield* deliveries.findById(workspaceId, id)
          if (Option.isNone(found)) return yield* new NotFound({ resource: "webhook_delivery" })
          const replayed = yield* newDelivery(found.value, yield* DateTime.now)
          yield* deliveries.insertMany([replayed])
          yield* changes.record({ workspaceId, actor, action: "webhook_delivery.replayed", target: id })
          return replayed
        }))
      })

      const events = Effect.fn("WebhookEndpoints.events")(function*(principal: Principal, page: PageRequest) {
        yield* permits(principal, "webhooks.read")
        return yield* outbox.list(principal.workspaceId, page)
      })

      const recover = Effect.fn("WebhookEndpoints.recover")(
        function*(principal: Principal, id: WebhookEndpointId, since: DateTime.Utc) {
          yield* permits(principal, "webhooks.write")
          const { workspaceId } = principal
          const actor = actorOf(principal)
          const now = yield* DateTime.now
          if (DateTime.isLessThan(since, DateTime.subtractDuration(now, recoveryWindow))) {
            return yield* new InvalidInput({ detail: "recovery reaches at most 14 days back" })
          }
          return yield* tx.withTransaction(Effect.gen(function*() {
            yield* find(workspaceId, id)
            const failed = yield* deliveries.failedSince(workspaceId, id, since)
            const replays = yield* Effect.forEach(failed, (d) => newDelivery(d, now))
            if (replays.length > 0) yield* deliveries.insertMany(replays)
            yield* changes.record({ workspaceId, actor, action: "webhook_endpoint.recovered", target: id })
            return replays
          }))
        }
      )

      return WebhookEndpoints.of({
        create,
        list,
        get,
        update,
        remove,
        rotateSecret,
        sendTest,
        deliveries: deliveriesOf,
        delivery,
        replay,
        recover,
        events
      })
    })
  )
}
