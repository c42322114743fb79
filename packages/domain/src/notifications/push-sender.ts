import { Context, DateTime, Duration, Effect, Exit, Layer, Metric, Option, Random } from "effect"
import { SecretBox, type Unavailable, type WorkQueue } from "../shared/index.ts"
import { pushBackoff, type PushMessage } from "./push-message.ts"
import { PushDeviceRepository } from "./push-device-repository.ts"
import { PushMessageRepository } from "./push-message-repository.ts"
import { type OutgoingPush, PushService, type PushServiceError } from "./push-service.ts"
import { logRemovedDevices } from "./removed-devices-log.ts"

/** The most messages the push service takes in one request. */
export const pushBatchSize = 100
// Long enough for one request to the push service and its bookkeeping; a crashed sender's batch comes back after it.
const lease = Duration.minutes(2)
const deviceGone = "DeviceNotRegistered"
const badCredentials = "InvalidCredentials"

/** Counts requests the push service refused for the access token: push is unhealthy until the token is fixed. */
export const pushInvalidCredentials = Metric.counter("atrium_push_invalid_credentials_total", {
  description: "Push requests refused because the access token is invalid"
})

/** Sends the push outbox in batches and reads receipts: each is one whole step the common worker runs. */
export class PushSender extends Context.Service<PushSender, {
  /** Sends one claimed batch and records every ticket; dead tokens are removed at once. */
  readonly sendBatch: (batch: ReadonlyArray<PushMessage>) => Effect.Effect<void, Unavailable>
  /** Reads the receipts of one claimed batch; a receipt naming a dead token removes it. */
  readonly checkReceipts: (batch: ReadonlyArray<PushMessage>) => Effect.Effect<void, Unavailable>
  /** The outbox as a work queue: one item is a batch of at most 100 messages. */
  readonly sendQueue: WorkQueue<ReadonlyArray<PushMessage>>
  /** The receipts due, as a work queue. */
  readonly receiptQueue: WorkQueue<ReadonlyArray<PushMessage>>
}>()("@atrium/domain/PushSender") {
  static readonly layer = Layer.effect(
    PushSender,
    Effect.gen(function*() {
      const service = yield* PushService
      const messages = yield* PushMessageRepository
      const devices = yield* PushDeviceRepository
      const box = yield* SecretBox

      // The project's push credentials (APNs/FCM) are wrong: every message will fail until an operator fixes them.
      const reportUnhealthy = (errors: ReadonlyArray<string>) => {
        const count = errors.filter((error) => error === badCredentials).length
        return count === 0
          ? Effect.void
          : Metric.update(pushInvalidCredentials, count).pipe(
            Effect.andThen(Effect.logError(`push is unhealthy: ${count} message(s) refused with InvalidCredentials`))
          )
      }

      const whenRefused = Effect.fnUntraced(function*(batch: ReadonlyArray<PushMessage>, error: PushServiceError) {
        const now = yield* DateTime.now
        if (error.reason === "invalid_credentials") {
          yield* Metric.update(pushInvalidCredentials, 1)
          yield* Effect.logError("push is unhealthy: the push service refused the access token (InvalidCredentials)")
        } else {
          yield* Effect.logWarning(`push batch not accepted (${error.reason}); retrying with backoff`)
        }
        const retryAfter = error.retryAfterSeconds === null ? Option.none() : Option.some(Duration.seconds(error.retryAfterSeconds))
        const next = yield* Effect.forEach(batch, (message) =>
          Random.next.pipe(Effect.map((jitter) => message.retryLater(`${error.reason}: ${error.detail}`, pushBackoff(message.attempts + 1, jitter, retryAfter), now))))
        yield* messages.updateMany(next)
      })

      // Tokens are opened here, for this request only; one the server key cannot open (the key was replaced) fails alone.
      const opened = Effect.fnUntraced(function*(batch: ReadonlyArray<PushMessage>) {
        const pushes: Array<OutgoingPush> = []
        const unreadable: Array<PushMessage> = []
        for (const message of batch) {
          const to = yield* Effect.exit(box.open(message.sealedToken))
          if (Exit.isSuccess(to)) pushes.push({ message, to: to.value })
          else unreadable.push(message)
        }
        return { pushes, unreadable }
      })

      // Dropped unsent: it waited over a day for a process with push configured.
      const expire = Effect.fnUntraced(function*(stale: ReadonlyArray<PushMessage>, now: DateTime.Utc) {
        if (stale.length === 0) return
        yield* Effect.logWarning(`push: ${stale.length} message(s) dropped unsent after 24 hours in the queue`)
        yield* messages.updateMany(stale.map((message) => message.failed("expired: not sent within 24 hours", now)))
      })

      const sendBatch = Effect.fn("PushSender.sendBatch")(function*(claimed: ReadonlyArray<PushMessage>) {
        if (claimed.length === 0) return
        const claimedAt = yield* DateTime.now
        yield* expire(claimed.filter((message) => message.isStaleAt(claimedAt)), claimedAt)
        const { pushes, unreadable } = yield* opened(claimed.filter((message) => !message.isStaleAt(claimedAt)))
        if (unreadable.length > 0) {
          yield* Effect.logError(`push: ${unreadable.length} message(s) failed: the server key cannot open their device token`)
          yield* messages.updateMany(unreadable.map((message) => message.failed("the device token cannot be opened with the server key", claimedAt, message.attempts + 1)))
        }
        if (pushes.length === 0) return
        const batch = pushes.map((push) => push.message)
        const sent = yield* Effect.result(service.send(pushes))
        if (sent._tag === "Failure") return yield* whenRefused(batch, sent.failure)
        const now = yield* DateTime.now
        const tickets = sent.success
        const outcomes = batch.map((message, index) => {
          const ticket = tickets[index]
          if (ticket === undefined) return message.retryLater("no ticket for the message", pushBackoff(message.attempts + 1, 0.5, Option.none()), now)
          return ticket.status === "ok" ? message.ticketed(ticket.id, now) : message.failed(ticket.error, now, message.attempts + 1)
        })
        yield* messages.updateMany(outcomes)
        yield* reportUnhealthy(tickets.flatMap((ticket) => (ticket.status === "error" ? [ticket.error] : [])))
        const dead = batch.filter((_, index) => {
          const ticket = tickets[index]
          return ticket !== undefined && ticket.status === "error" && ticket.error === deviceGone
        })
        yield* Effect.forEach(dead, (message) => Effect.flatMap(devices.deleteByTokenDigest(message.tokenDigest), (ids) => logRemovedDevices(ids, "token_dead")), { discard: true })
      })

      const checkReceipts = Effect.fn("PushSender.checkReceipts")(function*(batch: ReadonlyArray<PushMessage>) {
        const ticketIds = batch.flatMap((message) => Option.toArray(message.ticketId))
        if (ticketIds.length === 0) return
        const read = yield* Effect.result(service.receipts(ticketIds))
        const now = yield* DateTime.now
        if (read._tag === "Failure") {
          yield* Effect.logWarning(`push receipts not read (${read.failure.reason}); asking again later`)
          return yield* messages.updateMany(batch.map((message) => message.receiptPending(now)))
        }
        const receipts = read.success
        const outcomes = batch.map((message) => {
          const receipt = Option.flatMap(message.ticketId, (id) => Option.fromNullishOr(receipts.get(id)))
          if (Option.isNone(receipt)) return message.receiptPending(now)
          return receipt.value.status === "ok" ? message.delivered(now) : message.failed(receipt.value.error, now)
        })
        yield* messages.updateMany(outcomes)
        yield* reportUnhealthy(Array.from(receipts.values()).flatMap((receipt) => (receipt.status === "error" ? [receipt.error] : [])))
        const dead = batch.filter((message) =>
          Option.exists(message.ticketId, (id) => {
            const receipt = receipts.get(id)
            return receipt !== undefined && receipt.status === "error" && receipt.error === deviceGone
          })
        )
        yield* Effect.forEach(dead, (message) => Effect.flatMap(devices.deleteByTokenDigest(message.tokenDigest), (ids) => logRemovedDevices(ids, "token_dead")), { discard: true })
      })

      // One batch per claim: the push service takes at most 100 messages per request.
      const batchOf = (claim: Effect.Effect<ReadonlyArray<PushMessage>, Unavailable>) =>
        claim.pipe(Effect.map((claimed) => (claimed.length === 0 ? [] : [claimed])))

      const sendQueue: WorkQueue<ReadonlyArray<PushMessage>> = {
        name: "push-sender",
        claim: () => DateTime.now.pipe(Effect.flatMap((now) => batchOf(messages.claimDue(pushBatchSize, now, lease)))),
        step: sendBatch
      }

      const receiptQueue: WorkQueue<ReadonlyArray<PushMessage>> = {
        name: "push-receipts",
        claim: () => DateTime.now.pipe(Effect.flatMap((now) => batchOf(messages.claimReceiptsDue(pushBatchSize, now, lease)))),
        step: checkReceipts
      }

      return PushSender.of({ sendBatch, checkReceipts, sendQueue, receiptQueue })
    })
  )
}
