import { Cron, DateTime, Option, Result, Schema } from "effect"

/**
 * Occurrence rules of a schedule, on Effect's own `Cron`.
 *
 * A schedule's cron is read as **wall-clock time in its IANA time zone**. Daylight saving is resolved by one
 * documented rule, the same for every zone:
 * - a local time that does not exist (clocks jump forward over it) runs once, at the first valid instant after it:
 *   the instant the clocks jump (Berlin 2026-03-29 02:30 runs at 03:00 CEST); several such times collapse into that
 *   one run;
 * - a local time that occurs twice (clocks fall back) runs once, at its first occurrence (the second pass through
 *   the repeated hour runs nothing).
 *
 * `Cron` iterates the wall-clock times (parsed in UTC, where there is no daylight saving); this module maps each wall
 * time to its instant by the rule above. `Cron`'s own zone handling resolves a gap to the wall time shifted by the
 * gap (03:30) and documents that it may not return the nearest instant near a gap, hence the mapping here.
 */

const fivefields = /^\S+(\s+\S+){4}$/
/** The longest cron expression accepted: every minute listed one by one (`0,1,…,59 …`) still fits. */
export const maxCronLength = 256

/** Why a cron or time zone was refused, with the field it concerns (the `errors[].path` of a 400). */
export interface CronIssue {
  readonly path: "cron" | "timezone"
  readonly message: string
}

// Far enough back to see every wall time of a repeated period (the longest fall-back on record is 3 h).
const foldMarginMillis = 4 * 60 * 60 * 1000
const minuteMillis = 60_000

/** Parses the five cron fields (minute hour day-of-month month day-of-week) as wall-clock times. */
const parseWall = (expression: string): Result.Result<Cron.Cron, string> => {
  if (expression.length > maxCronLength) return Result.fail(`at most ${maxCronLength} characters`)
  const trimmed = expression.trim()
  if (!fivefields.test(trimmed)) return Result.fail("expected 5 fields: minute hour day-of-month month day-of-week")
  const parsed = Cron.parse(trimmed, "UTC")
  if (Result.isFailure(parsed)) return Result.fail(parsed.failure.message)
  // `Cron` gives up (throws) on a date that never exists, such as 30 February.
  const first = Result.try(() => Cron.next(parsed.success, 0))
  return Result.isFailure(first) ? Result.fail("the expression matches no date") : Result.succeed(parsed.success)
}

/** The canonical IANA name of `zone` (`Europe/Berlin`, `UTC`), or none for anything else (offsets included). */
export const canonicalTimeZone = (zone: string): Option.Option<string> =>
  /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(zone)
    ? Option.flatMap(DateTime.zoneMakeNamed(zone), (named) => /^[+-]/.test(named.id) ? Option.none() : Option.some(named.id))
    : Option.none()

/**
 * A 5-field cron expression (minute hour day-of-month month day-of-week); at most one run a minute by construction. Its
 * length is bounded in the filter, not by `maxLength`: no longer expression was meaningful, so the contract stays as it was.
 */
export const CronExpression = Schema.String.check(
  Schema.makeFilter((expression) => {
    const parsed = parseWall(expression)
    return Result.isSuccess(parsed) || `invalid cron expression: ${parsed.failure}`
  })
).annotate({ description: `5-field cron: minute hour day-of-month month day-of-week (at most ${maxCronLength} characters)`, examples: ["0 9 * * 1"] })

/** An IANA time zone name such as `Europe/Berlin` or `America/New_York`. */
export const TimeZoneName = Schema.String.check(
  Schema.makeFilter((zone) => Option.isSome(canonicalTimeZone(zone)) || "unknown IANA time zone")
).annotate({ description: "IANA time zone", examples: ["Europe/Berlin"] })

/** A schedule's cron read in its time zone, ready to compute occurrences. */
export interface ScheduleCron {
  readonly expression: string
  readonly timezone: string
  readonly wall: Cron.Cron
  readonly zone: DateTime.TimeZone
}

/** Parses and checks a cron and a time zone together; every problem is reported with its field. */
export const parseScheduleCron = (expression: string, timezone: string): Result.Result<ScheduleCron, ReadonlyArray<CronIssue>> => {
  const wall = parseWall(expression)
  const canonical = canonicalTimeZone(timezone)
  const zone = Option.flatMap(canonical, DateTime.zoneMakeNamed)
  const issues: Array<CronIssue> = []
  if (Result.isFailure(wall)) issues.push({ path: "cron", message: `invalid cron expression: ${wall.failure}` })
  if (Option.isNone(zone) || Option.isNone(canonical)) issues.push({ path: "timezone", message: "unknown IANA time zone" })
  if (Result.isFailure(wall) || Option.isNone(zone) || Option.isNone(canonical)) return Result.fail(issues)
  return Result.succeed({ expression: expression.trim().split(/\s+/).join(" "), timezone: canonical.value, wall: wall.success, zone: zone.value })
}

const offsetAt = (zone: DateTime.TimeZone, millis: number): number =>
  DateTime.zonedOffset(DateTime.makeZonedUnsafe(millis, { timeZone: zone }))

/** The instant a wall-clock time (its fields read as UTC millis) runs at in `zone`, by the documented rule. */
export const wallToInstant = (zone: DateTime.TimeZone, wallMillis: number): number => {
  const resolve = (disambiguation: "earlier" | "later") =>
    DateTime.toEpochMillis(DateTime.makeZonedUnsafe(wallMillis, { timeZone: zone, adjustForTimeZone: true, disambiguation }))
  const earlier = resolve("earlier")
  const later = resolve("later")
  if (earlier === later) return earlier
  // Repeated: "earlier" reads back as the same wall time — the first occurrence.
  if (earlier + offsetAt(zone, earlier) === wallMillis) return earlier
  // Skipped: the jump happens between the two readings; find the first minute on the later offset.
  const after = offsetAt(zone, later)
  let low = Math.floor(earlier / minuteMillis)
  let high = Math.ceil(later / minuteMillis)
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    if (offsetAt(zone, middle * minuteMillis) === after) high = middle
    else low = middle
  }
  return high * minuteMillis
}

const wallOf = (zone: DateTime.TimeZone, millis: number): number => millis + offsetAt(zone, millis)

/** The first occurrence strictly after `after`. Always exists: the expression was checked to match some date. */
export const nextOccurrence = (cron: ScheduleCron, after: DateTime.Utc): DateTime.Utc => {
  const target = DateTime.toEpochMillis(after)
  // Mapped instants never decrease as wall times increase, so start a little before `after`'s wall time.
  let wall = wallOf(cron.zone, target) - foldMarginMillis
  for (;;) {
    wall = Cron.next(cron.wall, wall).getTime()
    const instant = wallToInstant(cron.zone, wall)
    if (instant > target) return DateTime.makeUnsafe(instant)
  }
}

/** The latest occurrence at or before `atOrBefore`, if any is after `notBefore`. */
export const latestOccurrence = (cron: ScheduleCron, atOrBefore: DateTime.Utc, notBefore: DateTime.Utc): Option.Option<DateTime.Utc> => {
  const target = DateTime.toEpochMillis(atOrBefore)
  const floor = DateTime.toEpochMillis(notBefore)
  // Walk wall times backwards from a little after `atOrBefore`: the first one mapping at or before it is the latest.
  let wall = wallOf(cron.zone, target) + foldMarginMillis + 1
  for (;;) {
    wall = Cron.prev(cron.wall, wall).getTime()
    const instant = wallToInstant(cron.zone, wall)
    if (instant < floor) return Option.none()
    if (instant <= target) return Option.some(DateTime.makeUnsafe(instant))
  }
}

/** The next `count` occurrences strictly after `after`. */
export const upcomingOccurrences = (cron: ScheduleCron, after: DateTime.Utc, count: number): ReadonlyArray<DateTime.Utc> => {
  const out: Array<DateTime.Utc> = []
  let cursor = after
  while (out.length < count) {
    cursor = nextOccurrence(cron, cursor)
    out.push(cursor)
  }
  return out
}
