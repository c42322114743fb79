import { DateTime, Duration, Option, Schema } from "effect"
import { EventId, PushDeviceId, PushMessageId, UserId } from "../shared/index.ts"
import { NotificationCategory } from "./notification-preferences.ts"

/** pending: to send; sent: accepted by the push service (a receipt is due); delivered: the receipt said ok; failed: given up. */
export const PushMessageStatus = Schema.Literals(["pending", "sent", "delivered", "failed"])
export type PushMessageStatus = typeof PushMessageStatus.Type

/** How many send attempts a message gets before it is given up. */
export const maxPushAttempts = 8
/** When the push service's receipt is first asked for after a ticket, as Expo advises (~15 minutes). */
export const receiptDelay = Duration.minutes(15)
/**
 * A message not handed to the push service this long after its change is dropped unsent: it waited for a process with
 * push configured (every process queues, only those with the token send), and news that old is no longer news.
 */
export const pushMessageTtl = Duration.hours(24)
/** A receipt still missing this long after the ticket is no longer asked for. */
export const receiptGiveUp = Duration.hours(24)

/** Exponential backoff with ±20 % jitter: 2 s, 4 s, 8 s … capped at one hour; a `Retry-After` wins when longer. */
export const pushBackoff = (attempts: number, jitter: number, retryAfter: Option.Option<Duration.Duration>): Duration.Duration => {
  const base = Math.min(2 ** Math.max(1, attempts) * 1000, 3_600_000)
  const jittered = Duration.millis(Math.round(base * (0.8 + 0.4 * jitter)))
  return Option.match(retryAfter, { onNone: () => jittered, onSome: (after) => Duration.max(after, jittered) })
}

/** One notification to one device; texts are short and carry ids only, never secrets or another workspace's content. */
export class PushMessage extends Schema.Class<PushMessage>("@atrium/domain/PushMessage")({
  id: PushMessageId,
  userId: UserId,
  deviceId: PushDeviceId,
  /** The device's token as the device keeps it (sealed); the sender opens it only to build the request. */
  sealedToken: Schema.String,
  /** The token's keyed digest, so a dead token can be removed wherever it is registered now. */
  tokenDigest: Schema.String,
  category: NotificationCategory,
  eventId: Schema.OptionFromNullOr(EventId),
  title: Schema.String,
  body: Schema.String,
  data: Schema.Record(Schema.String, Schema.String),
  status: PushMessageStatus,
  attempts: Schema.Int,
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  ticketId: Schema.OptionFromNullOr(Schema.String),
  receiptCheckAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  lastError: Schema.OptionFromNullOr(Schema.String),
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {
  /** Queued longer than `pushMessageTtl` ago. */
  isStaleAt(now: DateTime.Utc): boolean {
    return DateTime.isGreaterThan(now, DateTime.addDuration(this.createdAt, pushMessageTtl))
  }

  /** The push service took it: ask for its receipt later. */
  ticketed(ticketId: string, now: DateTime.Utc): PushMessage {
    return new PushMessage({
      ...this,
      status: "sent",
      attempts: this.attempts + 1,
      ticketId: Option.some(ticketId),
      nextAttemptAt: Option.none(),
      receiptCheckAt: Option.some(DateTime.addDuration(now, receiptDelay)),
      lastError: Option.none(),
      updatedAt: now
    })
  }

  /** The push service could not take it now (429, 5xx, outage): try again after `delay`, or give up after the last attempt. */
  retryLater(error: string, delay: Duration.Duration, now: DateTime.Utc): PushMessage {
    const attempts = this.attempts + 1
    return attempts >= maxPushAttempts
      ? this.failed(error, now, attempts)
      : new PushMessage({ ...this, attempts, nextAttemptAt: Option.some(DateTime.addDuration(now, delay)), lastError: Option.some(error), updatedAt: now })
  }

  /** Given up for good (the device is gone, the message was refused). */
  failed(error: string, now: DateTime.Utc, attempts: number = this.attempts): PushMessage {
    return new PushMessage({ ...this, status: "failed", attempts, nextAttemptAt: Option.none(), receiptCheckAt: Option.none(), lastError: Option.some(error), updatedAt: now })
  }

  /** The receipt says the push service handed it to Apple or Google. */
  delivered(now: DateTime.Utc): PushMessage {
    return new PushMessage({ ...this, status: "delivered", receiptCheckAt: Option.none(), updatedAt: now })
  }

  /** No receipt yet: ask again later, or stop asking once it is a day old (it stays `sent`). */
  receiptPending(now: DateTime.Utc): PushMessage {
    const giveUp = DateTime.addDuration(this.createdAt, receiptGiveUp)
    const next = DateTime.addDuration(now, receiptDelay)
    return new PushMessage({ ...this, receiptCheckAt: DateTime.isGreaterThan(next, giveUp) ? Option.none() : Option.some(next), updatedAt: now })
  }
}
