import { type Cause, Context, DateTime, Duration, Effect, Layer, Option, Random, Redacted } from "effect"
import { SecretBox, type Unavailable } from "../shared/index.ts"
import { afterAttempt, type MailMessage, type SendOutcome } from "./mail-message.ts"
import { MailRepository } from "./mail-repository.ts"
import { mailRetryDelays, retryDelayAfter } from "./mail-retry.ts"
import { linkFor, renderMail } from "./mail-templates.ts"
import { Mailer, type MailSendFailure } from "./mailer.ts"

/** Tunables of sending, with the documented defaults. */
export interface MailPolicy {
  /** The base of every link in a message (`ATRIUM_PUBLIC_URL`). */
  readonly publicUrl: string
  /** The longest one send may take, whatever the adapter's own timeouts; past it the attempt is temporary. */
  readonly timeout: Duration.Duration
  /** How long a claim is held; longer than any send, so only a crashed sender's claims come back. */
  readonly lease: Duration.Duration
  /** Delay before each retry of a temporary failure. */
  readonly retryDelays: ReadonlyArray<Duration.Duration>
  /** Most attempts ending in a TLS failure before the message is failed for good. */
  readonly tlsAttempts: number
}

/** 3 minutes per send (above the SMTP adapter's own 10 s / 30 s / 2 min timeouts), a 5-minute lease, ~16 h of retries, 3 TLS failures. */
export const defaultMailPolicy = (publicUrl: string): MailPolicy => ({
  publicUrl,
  timeout: Duration.minutes(3),
  lease: Duration.minutes(5),
  retryDelays: mailRetryDelays,
  tlsAttempts: 3
})

/** A failure as the retry policy sees it: a TLS failure is temporary until `tlsAttempts` attempts, then permanent. */
const outcomeOf = (kind: MailSendFailure["kind"], detail: string, attempt: number, tlsAttempts: number): SendOutcome => {
  if (kind === "temporary") return { _tag: "Temporary", detail }
  if (kind === "permanent") return { _tag: "Permanent", detail }
  return attempt < tlsAttempts
    ? { _tag: "Temporary", detail: `TLS failed: ${detail}` }
    : { _tag: "Permanent", detail: `TLS failed ${attempt} times, given up: ${detail}` }
}

/** The sending side of the outbox: claim due messages, render each around its link, hand it to the `Mailer`, record the outcome. */
export class MailDelivery extends Context.Service<MailDelivery, {
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, Unavailable>
  /** One whole attempt of one message; answers the message as recorded. */
  readonly deliver: (message: MailMessage) => Effect.Effect<MailMessage, Unavailable>
  /** Records a step that broke unexpectedly as a temporary failure, without its cause (which could hold anything). */
  readonly recordDefect: (message: MailMessage, cause: Cause.Cause<unknown>) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/MailDelivery") {
  static readonly layerWith = (policy: MailPolicy) =>
    Layer.effect(
      MailDelivery,
      Effect.gen(function*() {
        const repo = yield* MailRepository
        const mailer = yield* Mailer
        const box = yield* SecretBox

        const claim = Effect.fn("MailDelivery.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          return yield* repo.claimDue(now, limit, DateTime.addDuration(now, policy.lease))
        })

        const settle = Effect.fnUntraced(function*(message: MailMessage, outcome: SendOutcome) {
          const now = yield* DateTime.now
          const delay = retryDelayAfter(message.attempts + 1, outcome, (yield* Random.next) * 2 - 1, policy.retryDelays)
          const next = afterAttempt(message, outcome, now, delay)
          // Losing the compare-and-set means another sender settled it after our lease ran out: theirs stands.
          const recorded = yield* repo.settle(message, next)
          if (recorded) {
            const fields = { messageId: next.id, template: next.template, status: next.status, attempts: next.attempts }
            // Every failed attempt is logged where an operator sees it; the detail was cleared of the link's token.
            yield* outcome._tag === "Sent"
              ? Effect.logInfo("mail message settled").pipe(Effect.annotateLogs(fields))
              : Effect.logWarning(next.status === "failed" ? "mail message failed for good" : "mail attempt failed, will retry").pipe(
                Effect.annotateLogs({ ...fields, detail: outcome.detail })
              )
          }
          return next
        })

        const attempt = Effect.fnUntraced(function*(message: MailMessage) {
          const now = yield* DateTime.now
          if (Option.exists(message.linkExpiresAt, (at) => DateTime.isGreaterThanOrEqualTo(now, at))) {
            return { _tag: "Permanent", detail: "the link expired before the message could be sent" } satisfies SendOutcome
          }
          if (Option.isNone(message.sealedToken)) return { _tag: "Permanent", detail: "the message has no link to send" } satisfies SendOutcome
          const token = Redacted.value(yield* box.open(message.sealedToken.value))
          const rendered = renderMail(message.content, linkFor(policy.publicUrl, message.template, token), message.linkExpiresAt)
          // A server may quote the message back in its refusal: the token never reaches the record or the log.
          const clean = (detail: string) => detail.split(token).join("[token]").split(encodeURIComponent(token)).join("[token]")
          return yield* mailer.send({ id: message.id, to: message.to, ...rendered }).pipe(
            Effect.as<SendOutcome>({ _tag: "Sent" }),
            Effect.catchTag("MailSendFailure", (failure) =>
              Effect.succeed<SendOutcome>(outcomeOf(failure.kind, clean(failure.detail), message.attempts + 1, policy.tlsAttempts))),
            Effect.timeoutOrElse({
              duration: policy.timeout,
              orElse: () => Effect.succeed<SendOutcome>({ _tag: "Temporary", detail: "the send timed out" })
            })
          )
        })

        const deliver = Effect.fn("MailDelivery.deliver")(function*(message: MailMessage) {
          return yield* settle(message, yield* attempt(message))
        })

        const recordDefect = Effect.fn("MailDelivery.recordDefect")(function*(message: MailMessage, _cause: Cause.Cause<unknown>) {
          yield* settle(message, { _tag: "Temporary", detail: "internal error while sending" })
        })

        return MailDelivery.of({ claim, deliver, recordDefect })
      })
    )
}
