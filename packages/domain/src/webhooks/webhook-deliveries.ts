import { type Array as Arr, Context, DateTime, Duration, Effect, Layer, Option, Random, Semaphore } from "effect"
import { systemActor } from "../shared/index.ts"
import { WebhookEvents } from "./webhook-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import type { Unavailable } from "../shared/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { AttemptId } from "../shared/index.ts"
import { type AttemptRecord, type ClaimedDelivery, DeliveryRepository } from "./delivery-repository.ts"
import { Transactor } from "../shared/index.ts"
import { WebhookEndpointRepository } from "./webhook-endpoint-repository.ts"
import { type TransportRequest, type TransportResult, WebhookTransport } from "./webhook-transport.ts"
import type { WorkQueue } from "../shared/index.ts"
import { SecretBox } from "../shared/index.ts"
import { type AttemptVerdict, defaultDisableAfter, DeliveryAttempt, deliveryHeaders, envelopeOf, judgeAttempt, retryDelays, WebhookDelivery } from "./webhook-delivery.ts"
import { type EndpointSecret, WebhookEndpoint } from "./webhook-endpoint.ts"
import { importSigningKey, type SigningKey, signWebhookWith, WebhookSigner } from "./webhook-signature.ts"

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
  /**
   * How long an opened (decrypted and imported) signing secret serves later passes too, so a busy worker opens each
   * secret about once per window rather than once per pass; 0 opens afresh every pass.
   */
  readonly openedSecretWindow?: Duration.Duration | undefined
}

/** The defaults: 15 s per attempt, 5 s to connect, 60 s lease, disable after 5 days of failure, secrets reopened each second. */
export const defaultDeliveryPolicy: DeliveryPolicy = {
  timeout: Duration.seconds(15),
  connectTimeout: Duration.seconds(5),
  lease: Duration.seconds(60),
  disableAfter: defaultDisableAfter,
  retryDelays,
  openedSecretWindow: Duration.seconds(1)
}

/** An endpoint secret opened and imported for signing, with the validity of the secret it came from. */
export interface OpenedSecret {
  readonly secret: EndpointSecret
  readonly signing: SigningKey
}

/** A claimed delivery with its endpoint's secrets, each opened once for the whole pass however many deliveries share it. */
export interface OpenedDelivery extends ClaimedDelivery {
  readonly opened: ReadonlyArray<OpenedSecret>
}

/**
 * An attempt made and not yet recorded: what was sent when, and what came back. Its id is given when it is sent, so
 * writing it again (a repeated write after a failure) stores it once.
 */
export interface SentAttempt {
  readonly id: AttemptId
  readonly claimed: OpenedDelivery
  readonly startedAt: DateTime.Utc
  readonly result: TransportResult
}

/** The delivery side of webhooks: claim due deliveries, make one attempt at each, record a pass's attempts together. */
export class WebhookDeliveries extends Context.Service<WebhookDeliveries, {
  /** Leases up to `limit` due deliveries to this worker and opens each of their endpoints' secrets once. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<OpenedDelivery>, Unavailable>
  /**
   * One attempt, not yet recorded: signs the delivery with every secret valid now (two during a rotation) and sends it
   * through the `WebhookTransport` port. Never fails: a refused or failed send is an attempt's result.
   */
  readonly send: (claimed: OpenedDelivery) => Effect.Effect<SentAttempt>
  /**
   * Records attempts with their deliveries' new state by the retry policy, in one write for all of them; an attempt
   * that disables its endpoint (410 Gone, or failing too long) is recorded in a transaction of its own with the disable.
   */
  readonly record: (sent: Arr.NonEmptyReadonlyArray<SentAttempt>) => Effect.Effect<ReadonlyArray<DeliveryAttempt>, Unavailable>
  /**
   * Records an attempt whose handling broke (a defect: a bug, or an answer the store refuses) so that its delivery moves
   * on by the retry policy rather than waiting out its lease unrecorded: with the attempt's outcome when it was sent,
   * less the receiver's response body and headers; otherwise as a failed attempt without an answer.
   */
  readonly recordDefect: (claimed: OpenedDelivery, sent: Option.Option<SentAttempt>) => Effect.Effect<DeliveryAttempt, Unavailable>
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
        const signer = yield* WebhookSigner

        const openSecret = (secret: EndpointSecret) =>
          box.open(secret.sealed).pipe(
            Effect.flatMap(importSigningKey),
            Effect.provideService(WebhookSigner, signer),
            Effect.map((signing): OpenedSecret => ({ secret, signing }))
          )
        // Opened secrets by sealed value (a rotation seals a new value, so it is never served an old key), with when opened.
        const windowMillis = Duration.toMillis(policy.openedSecretWindow ?? Duration.zero)
        const recentlyOpened = new Map<string, { readonly entry: OpenedSecret; readonly openedAt: number }>()
        const openingOneAtATime = yield* Semaphore.make(1)

        const claim = Effect.fn("WebhookDeliveries.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          const claimed = yield* deliveries.claimDue(now, limit, DateTime.addDuration(now, policy.lease))
          const nowMillis = DateTime.toEpochMillis(now)
          // A pass opens each valid secret once (decrypt and key import), not once per delivery to its endpoint; passes
          // that overlap open one after the other, so the second finds what the first opened.
          const fresh = yield* openingOneAtATime.withPermits(1)(Effect.suspend(() => {
            for (const [sealed, kept] of recentlyOpened) if (nowMillis - kept.openedAt >= windowMillis) recentlyOpened.delete(sealed)
            const distinct = new Map<string, EndpointSecret>()
            for (const item of claimed) {
              for (const secret of item.secrets) if (secret.isValidAt(now) && !recentlyOpened.has(secret.sealed)) distinct.set(secret.sealed, secret)
            }
            return Effect.map(Effect.forEach(distinct.values(), openSecret), (opened) => {
              if (windowMillis > 0) for (const entry of opened) recentlyOpened.set(entry.secret.sealed, { entry, openedAt: nowMillis })
              return opened
            })
          }))
          const bySealed = new Map(Array.from(recentlyOpened, ([sealed, kept]) => [sealed, kept.entry]))
          for (const entry of fresh) bySealed.set(entry.secret.sealed, entry)
          return claimed.map((item): OpenedDelivery => ({
            ...item,
            opened: item.secrets.flatMap((secret) => {
              const entry = bySealed.get(secret.sealed)
              return entry === undefined ? [] : [entry]
            })
          }))
        })

        const prepare = Effect.fnUntraced(function*(claimed: OpenedDelivery, now: DateTime.Utc) {
          // A secret that expired since the claim (the item waited for its endpoint's slot) no longer signs.
          const keys = claimed.opened.filter((entry) => entry.secret.isValidAt(now)).map((entry) => entry.signing)
          const body = envelopeOf({ ...claimed.event, createdAt: DateTime.formatIso(claimed.event.createdAt) })
          const timestamp = Math.floor(DateTime.toEpochMillis(now) / 1000)
          const signature = yield* signWebhookWith(keys, { id: claimed.event.id, timestamp, body })
          const request: TransportRequest = {
            url: claimed.endpoint.url,
            headers: {
              ...deliveryHeaders(claimed.event.id),
              "webhook-timestamp": String(timestamp),
              "webhook-signature": signature
            },
            body,
            timeout: policy.timeout,
            connectTimeout: policy.connectTimeout
          }
          return request
        })

        // Untraced: one span per attempt cost more than signing it; the pass's claim and record spans cover attempts.
        const send = Effect.fnUntraced(function*(claimed: OpenedDelivery) {
          const id = AttemptId.make(yield* ids.make("att"))
          const startedAt = yield* DateTime.now
          const result = yield* transport.send(yield* prepare(claimed, startedAt))
          const sent: SentAttempt = { id, claimed, startedAt, result }
          return sent
        })

        /** The attempt and the delivery's new state by the retry policy. */
        const judge = Effect.fnUntraced(function*(sent: SentAttempt, now: DateTime.Utc) {
          const { claimed, result, startedAt } = sent
          const number = claimed.delivery.attemptCount + 1
          const verdict = judgeAttempt(number, result, (yield* Random.next) * 2 - 1, policy.retryDelays)
          const nextAttemptAt = verdict._tag === "RetryAfter" ? Option.some(DateTime.addDuration(now, verdict.delay)) : Option.none()
          const attempt = new DeliveryAttempt({
            id: sent.id,
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
          return { sent, verdict, record: { attempt, delivery } }
        })

        // Whether this attempt disables its endpoint, judged on the endpoint as claimed (its streak is at most a pass old).
        const mayDisable = (verdict: AttemptVerdict, claimed: ClaimedDelivery, now: DateTime.Utc) =>
          verdict._tag === "EndpointGone" || (verdict._tag !== "Delivered" && Option.exists(claimed.endpoint.failingSince, (since) =>
            Duration.isGreaterThanOrEqualTo(Duration.millis(DateTime.toEpochMillis(now) - DateTime.toEpochMillis(since)), policy.disableAfter)))

        // The rare attempt that may disable its endpoint: recorded with the endpoint's current state in one transaction.
        const recordDisabling = Effect.fnUntraced(function*(sent: SentAttempt, verdict: AttemptVerdict, record: AttemptRecord, now: DateTime.Utc) {
          const { claimed, startedAt } = sent
          yield* tx.withTransaction(Effect.gen(function*() {
            yield* deliveries.recordAttempt(record.attempt, record.delivery)
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
        })

        // One line per failed attempt for operators; never the URL (it may carry a token) nor the response body.
        const logFailure = (claimed: ClaimedDelivery, result: TransportResult, delivery: WebhookDelivery) =>
          Effect.logWarning("webhook attempt failed").pipe(Effect.annotateLogs({
            deliveryId: delivery.id,
            endpointId: claimed.endpoint.id,
            workspaceId: claimed.endpoint.workspaceId,
            attempt: delivery.attemptCount,
            errorKind: result.errorKind ?? "none",
            statusCode: result.statusCode ?? "none",
            outcome: delivery.status === "pending"
              ? `retry at ${Option.getOrElse(Option.map(delivery.nextAttemptAt, DateTime.formatIso), () => "-")}`
              : "gave up"
          }))

        const record = Effect.fn("WebhookDeliveries.record")(function*(sent: Arr.NonEmptyReadonlyArray<SentAttempt>) {
          const now = yield* DateTime.now
          const judged = yield* Effect.forEach(sent, (one) => judge(one, now))
          const batched: Array<AttemptRecord> = []
          for (const entry of judged) if (!mayDisable(entry.verdict, entry.sent.claimed, now)) batched.push(entry.record)
          // The common case: every attempt of the pass and its delivery's new state (and streaks) in one write.
          if (batched.length > 0) yield* deliveries.recordAttempts(batched)
          for (const entry of judged) {
            if (mayDisable(entry.verdict, entry.sent.claimed, now)) yield* recordDisabling(entry.sent, entry.verdict, entry.record, now)
            if (entry.verdict._tag !== "Delivered") yield* logFailure(entry.sent.claimed, entry.sent.result, entry.record.delivery)
          }
          return judged.map((entry) => entry.record.attempt)
        })

        // What a broken attempt leaves on record: no answer, nothing of the receiver's that the store could refuse.
        const withoutAnswer: TransportResult = {
          ok: false,
          errorKind: "network",
          statusCode: null,
          responseHeaders: {},
          responseBody: "",
          retryAfterSeconds: null,
          durationMillis: 0,
          remoteAddress: null
        }

        const recordDefect = Effect.fn("WebhookDeliveries.recordDefect")(function*(claimed: OpenedDelivery, sent: Option.Option<SentAttempt>) {
          const attempt: SentAttempt = Option.isSome(sent)
            ? { ...sent.value, result: { ...sent.value.result, responseHeaders: {}, responseBody: "" } }
            : { id: AttemptId.make(yield* ids.make("att")), claimed, startedAt: yield* DateTime.now, result: withoutAnswer }
          const [recorded] = yield* record([attempt])
          return recorded ?? (yield* Effect.die(new Error("a broken attempt was recorded without its result")))
        })

        return WebhookDeliveries.of({ claim, send, record, recordDefect })
      })
    )

  static readonly layer = WebhookDeliveries.layerWith(defaultDeliveryPolicy)

  /**
   * The delivery queue for `runWorker`: one attempt per step, at most `perKey` attempts at once to one endpoint, the
   * attempts that finish together recorded in one write, and an attempt whose handling broke recorded on its own.
   */
  static readonly queue = Effect.gen(function*() {
    const deliveries = yield* WebhookDeliveries
    const queue: WorkQueue<OpenedDelivery, never, SentAttempt> = {
      name: "WebhookDeliveries",
      claim: deliveries.claim,
      step: deliveries.send,
      completeMany: deliveries.record,
      keyOf: (claimed) => claimed.endpoint.id,
      onDefect: (claimed, _cause, sent) => deliveries.recordDefect(claimed, sent)
    }
    return queue
  })
}
