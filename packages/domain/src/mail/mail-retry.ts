import { Duration, Option } from "effect"
import type { SendOutcome } from "./mail-message.ts"

/** Delay before each retry after attempt n (index n-1): about a day of trying, then the message fails for good. */
export const mailRetryDelays: ReadonlyArray<Duration.Duration> = [
  Duration.seconds(30),
  Duration.minutes(2),
  Duration.minutes(10),
  Duration.minutes(30),
  Duration.hours(1),
  Duration.hours(2),
  Duration.hours(4),
  Duration.hours(8)
]

/**
 * The retry policy: a temporary failure (4xx reply, timeout, dropped connection) waits the schedule's next step with
 * ±20 % jitter (`jitter` in [-1, 1]); none when the schedule has run out or the outcome is not temporary.
 */
export const retryDelayAfter = (
  attemptNumber: number,
  outcome: SendOutcome,
  jitter: number,
  delays: ReadonlyArray<Duration.Duration> = mailRetryDelays
): Option.Option<Duration.Duration> => {
  if (outcome._tag !== "Temporary") return Option.none()
  const step = delays[attemptNumber - 1]
  if (step === undefined) return Option.none()
  const factor = 1 + 0.2 * Math.max(-1, Math.min(1, jitter))
  return Option.some(Duration.millis(Math.round(Duration.toMillis(step) * factor)))
}
