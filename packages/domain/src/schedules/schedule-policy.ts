import { Context, Duration } from "effect"
import type { PausedReason, SkipReason } from "./schedule.ts"

/** Tunables of schedule firing, with the documented defaults. */
export interface SchedulePolicy {
  /** Consecutive failed tasks or refused submissions that pause a schedule. */
  readonly failuresBeforePause: number
  /** An occurrence fired later than this after its instant counts as missed (`catchUp: none` drops it). */
  readonly missedAfter: Duration.Duration
  /** How long a worker's claim on an occurrence holds. */
  readonly lease: Duration.Duration
  /** Claims an occurrence gets before it is given up on (a step that keeps dying). */
  readonly maxAttempts: number
}

/** Five failures pause; late by more than 5 minutes is missed; 60 s leases; 5 attempts. */
export const defaultSchedulePolicy: SchedulePolicy = {
  failuresBeforePause: 5,
  missedAfter: Duration.minutes(5),
  lease: Duration.seconds(60),
  maxAttempts: 5
}

/** The policy in force; compositions override the default by providing it. */
export const CurrentSchedulePolicy = Context.Reference<SchedulePolicy>("@atrium/domain/CurrentSchedulePolicy", {
  defaultValue: () => defaultSchedulePolicy
})

/** The reason a schedule pauses after too many failures, named after the last one when it is a refusal of note. */
export const pausedReasonAfter = (last: SkipReason | "task_failed"): PausedReason =>
  last === "not_entitled" ? "not_entitled" : last === "insufficient_credits" ? "insufficient_credits" : "failing"
