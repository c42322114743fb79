import { Context, DateTime, Duration, Effect, Layer, Option, Random } from "effect"
import { systemActor } from "../shared/index.ts"
import { WebhookEvents } from "./webhook-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import type { Unavailable } from "../shared/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { AttemptId } from "../shared/index.ts"
import { type ClaimedDelivery, DeliveryRepository } from "./delivery-repository.ts"
import { makeBatcher, Transactor } from "../shared/index.ts"
import { WebhookEndpointRepository } from "./webhook-endpoint-repository.ts"
import { type TransportRequest, type TransportResult, WebhookTransport } from "./webhook-transport.ts"
import type { WorkQueue } from "../shared/index.ts"
import { SecretBox } from "../shared/index.ts"
import { defaultDisableAfter, DeliveryAttempt, envelopeOf, judgeAttempt, retryDelays, WebhookDelivery } from "./webhook-delivery.ts"
import { WebhookEndpoint } from "./webhook-endpoint.ts"
import { signWebhook } from "./webhook-signature.ts"

/** Tunables of delivery, with the documented defaults. */
export interface DeliveryPolicy {
  readonly timeout: Duration.Duration
  readonly connectTimeout: Duration.Duration
  /** How long a claim is held; longer than any attempt, so only a crashed worker's claims come back. */
  readonly lease: Duration.Duration
  /** Continuous failure after which an endpoint is disabled. */
  readonly disableAfter: Duration.Duration
  /** Delay before each retry (the documented schedule unless shortened for tests or development). */
  readonly retryDelays: ReadonlyArray<Duration.Duration>
}

/** The defaults: 15 s per attempt, 5 s to connect, 60 s lease, disable after 5 days of failure. */
export const defaultDeliveryPolicy: DeliveryPolicy = {
  timeout: Duration.seconds(15),
  connectTimeout: Duration.seconds(5),
  lease: Duration.seconds(60),
  disableAfter: defaultDisableAfter,
  retryDelays
}

/** The delivery side of webhooks: claim due deliveries and make one whole attempt at each. */
export class WebhookDeliveries extends Context.Service<WebhookDeliveries, {
  /** Leases up to `limit` due deliveries to this worker. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<ClaimedDelivery>, Unavailable>
  /**
   * One whole attempt: signs the delivery with every secret valid now (two during a rotation), sends it through the
   * `WebhookTransport` port, stores the attempt and applies the retry policy, disabling the endpoint when it is gone
   * or has failed too long.
   */
  readonly deliver: (claimed: ClaimedDelivery) => Effect.Effect<DeliveryAttempt, Unavailable>
  /** One pass by hand (tests, tools): claims up to `limit` and delivers each in turn. */
  readonly runDue: (limit: number) => Effect.Effect<ReadonlyArray<DeliveryAttempt>, Unavailable>
}>()("@atrium/domain/WebhookDeliveries") {
  static readonly layerWith = (policy: DeliveryPolicy) =>
    Layer.effect(
      WebhookDeliveries,
      Effect.gen(function*() {
        const deliveries = yield* DeliveryRepository
        const endpoints = yield* WebhookEndpointRepository
        const tx = yield* Transactor
        const ids = yield* IdGenerator
        const box = yield* SecretBox
        const changes = yield* ChangeLog
        const transport = yield* WebhookTransport
        // Successful attempts are written in groups (group commit): one statement for whatever finished meanwhile.
        const recorder = yield* makeBatcher(deliveries.recordAttempts, { maxBatch: 256, writers: 2 })

        const claim = Effect.fn("WebhookDeliveries.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          return yield* deliveries.claimDue(now, limit, DateTime.addDuration(now, policy.lease))
        })

        const prepare = Effect.fnUntraced(function*(claimed: ClaimedDelivery) {
          const now = yield* DateTime.now
          const secrets = yield* Effect.forEach(claimed.secrets.filter((s) => s.isValidAt(now)), (s) => box.open(s.sealed))
          const body = envelopeOf({ ...claimed.event, createdAt: DateTime.formatIso(claimed.event.createdAt) })
          const timestamp = Math.floor(DateTime.toEpochMillis(now) / 1000)
          const signature = yield* signWebhook(secrets, { id: claimed.event.id, timestamp, body })
          const request: TransportRequest = {
            url: claimed.endpoint.url,
            headers: {
              "content-type": "application/json",
              "user-agent": "Atrium-Webhooks/1",
              "webhook-id": claimed.event.id,
              "webhook-timestamp": String(timestamp),
              "webhook-signature": signature
            },
            body,
            timeout: policy.timeout,
            connectTimeout: policy.connectTimeout
          }
          return request
        })

        const complete = Effect.fnUntraced(
          function*(claimed: ClaimedDelivery, startedAt: DateTime.Utc, result: TransportResult) {
            const now = yield* DateTime.now
            const number = claimed.delivery.attemptCount + 1
            const verdict = judgeAttempt(number, result, (yield* Random.next) * 2 - 1, policy.retryDelays)
            const nextAttemptAt = verdict._tag === "RetryAfter" ? Option.some(DateTime.addDuration(now, verdict.delay)) : Option.none()
            const attempt = new DeliveryAttempt({
              id: AttemptId.make(yield* ids.make("att")),
              deliveryId: claimed.delivery.id,
              number,
              startedAt,
              durationMillis: Math.round(result.durationMillis),
              statusCode: Option.fromNullishOr(result.statusCode),
              errorKind: Option.fromNullishOr(result.errorKind),
              responseHeaders: result.responseHeaders,
              responseBody: result.responseBody,
              remoteAddress: Option.fromNullishOr(result.remoteAddress),
              nextAttemptAt
            })
            const delivery = new WebhookDelivery({
              ...claimed.delivery,
              status: verdict._tag === "Delivered" ? "succeeded" : verdict._tag === "RetryAfter" ? "pending" : "failed",
              attemptCount: number,
              nextAttemptAt,
              lastStatusCode: Option.fromNullishOr(result.statusCode),
              updatedAt: now
            })
            // The common case takes the shared write: a pass's successes are recorded in one statement.
            if (verdict._tag === "Delivered") {
              yield* recorder.write({ attempt, delivery })
              return attempt
            }
            yield* tx.withTransaction(Effect.gen(function*() {
              yield* deliveries.recordAttempt(attempt, delivery)
              const current = yield* endpoints.findById(claimed.endpoint.workspaceId, claimed.endpoint.id)
              if (Option.isNone(current)) return
              const endpoint = current.value
              const failingSince = Option.getOrElse(endpoint.failingSince, () => startedAt)
              const failedTooLong = Duration.isGreaterThanOrEqualTo(
                Duration.millis(DateTime.toEpochMillis(now) - DateTime.toEpochMillis(failingSince)),
                policy.disableAfter
              )
              if (endpoint.enabled && (verdict._tag === "EndpointGone" || failedTooLong)) {
                const reason = verdict._tag === "EndpointGone" ? "the endpoint answered 410 Gone" : "failing continuously"
                yield* endpoints.update(
                  new WebhookEndpoint({ ...endpoint, enabled: false, disabledReason: Option.some(reason), failingSince: Option.some(failingSince), updatedAt: now })
                )
                yield* deliveries.failPending(endpoint.id, now)
                yield* changes.record({
                  workspaceId: endpoint.workspaceId,
                  actor: systemActor("webhook-delivery"),
                  action: "webhook_endpoint.disabled",
                  target: endpoint.id,
                  event: emit(WebhookEvents.endpointDisabled, { endpoint: { id: endpoint.id, url: endpoint.url, reason, disabledAt: DateTime.formatIso(now) } })
                })
              } else if (Option.isNone(endpoint.failingSince)) {
                yield* endpoints.update(new WebhookEndpoint({ ...endpoint, failingSince: Option.some(failingSince), updatedAt: now }))
              }
            }))
            // One line per failed attempt for operators; never the URL (it may carry a token) nor the response body.
            {
              yield* Effect.logWarning("webhook attempt failed").pipe(Effect.annotateLogs({
                deliveryId: delivery.id,
                endpointId: claimed.endpoint.id,
                workspaceId: claimed.endpoint.workspaceId,
                attempt: number,
                errorKind: result.errorKind ?? "none",
                statusCode: result.statusCode ?? "none",
                outcome: delivery.status === "pending"
                  ? `retry at ${Option.getOrElse(Option.map(nextAttemptAt, DateTime.formatIso), () => "-")}`
                  : "gave up"
              }))
            }
            return attempt
          }
        )

        const deliver = Effect.fn("WebhookDeliveries.deliver")(function*(claimed: ClaimedDelivery) {
          const startedAt = yield* DateTime.now
          const result = yield* transport.send(yield* prepare(claimed))
          return yield* complete(claimed, startedAt, result)
        })

        const runDue = Effect.fn("WebhookDeliveries.runDue")(function*(limit: number) {
          return yield* Effect.forEach(yield* claim(limit), deliver)
        })

        return WebhookDeliveries.of({ claim, deliver, runDue })
      })
    )

  static readonly layer = WebhookDeliveries.layerWith(defaultDeliveryPolicy)

  /** The delivery queue for `runWorker`: one attempt per step, at most `perKey` attempts at once to one endpoint. */
  static readonly queue = Effect.gen(function*() {
    const deliveries = yield* WebhookDeliveries
    const queue: WorkQueue<ClaimedDelivery> = {
      name: "WebhookDeliveries",
      claim: deliveries.claim,
      step: deliveries.deliver,
      keyOf: (claimed) => claimed.endpoint.id
    }
    return queue
  })
}
