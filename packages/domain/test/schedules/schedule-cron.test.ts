import { nextOccurrence, parseScheduleCron, Schedules, upcomingOccurrences } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Cron, DateTime, Effect, Option, Result, Schema } from "effect"
import { latestOccurrence } from "../../src/schedules/schedule-cron.ts"
import { body, entitledWorkspace, firePass, keyOf, runTasks, setTime, state } from "../support/schedules.ts"

const cronOf = (expression: string, zone: string) => Result.getOrThrow(parseScheduleCron(expression, zone))

const upcoming = (expression: string, zone: string, after: string, count: number) =>
  upcomingOccurrences(cronOf(expression, zone), DateTime.makeUnsafe(after), count).map(DateTime.formatIso)

describe("occurrence rules (pure)", () => {
  it("Berlin spring: 02:30 does not exist on 29 March and runs once at 03:00 CEST, the first valid instant after it", () => {
    assert.deepStrictEqual(upcoming("30 2 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", 3), [
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z"
    ])
  })

  it("Berlin spring: every half hour, 02:00 and 02:30 collapse into the 03:00 run (no double)", () => {
    assert.deepStrictEqual(upcoming("*/30 * * * *", "Europe/Berlin", "2026-03-29T00:00:00Z", 4), [
      "2026-03-29T00:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T01:30:00.000Z",
      "2026-03-29T02:00:00.000Z"
    ])
  })

  it("Berlin autumn: 02:30 happens twice on 25 October and runs once, at its first occurrence (CEST)", () => {
    assert.deepStrictEqual(upcoming("30 2 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", 3), [
      "2026-10-24T00:30:00.000Z",
      "2026-10-25T00:30:00.000Z",
      "2026-10-26T01:30:00.000Z"
    ])
  })

  it("New York spring: 02:30 does not exist on 8 March and runs at 03:00 EDT", () => {
    assert.deepStrictEqual(upcoming("30 2 * * *", "America/New_York", "2026-03-06T12:00:00Z", 3), [
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:00:00.000Z",
      "2026-03-09T06:30:00.000Z"
    ])
  })

  it("New York autumn: hourly, the repeated 01:00 runs once; the next run is 02:00 EST", () => {
    assert.deepStrictEqual(upcoming("0 * * * *", "America/New_York", "2026-11-01T03:30:00Z", 4), [
      "2026-11-01T04:00:00.000Z",
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T07:00:00.000Z",
      "2026-11-01T08:00:00.000Z"
    ])
  })

  it("an instant inside the repeated hour still finds the next occurrence after it", () => {
    // 06:10Z is 01:10 EST, the second pass through 01:xx; 01:30 already ran at 05:30Z, so next is tomorrow.
    const next = nextOccurrence(cronOf("30 1 * * *", "America/New_York"), DateTime.makeUnsafe("2026-11-01T06:10:00Z"))
    assert.strictEqual(DateTime.formatIso(next), "2026-11-02T06:30:00.000Z")
  })

  it("refuses a bad cron and a bad zone, naming each field", () => {
    const both = parseScheduleCron("61 * * * *", "Mars/Olympus")
    assert.isTrue(Result.isFailure(both))
    if (Result.isFailure(both)) assert.deepStrictEqual(both.failure.map((issue) => issue.path), ["cron", "timezone"])
    for (const bad of ["* * * *", "0 0 9 * * *", "0 0 30 2 *", "", "every day"]) {
      assert.isTrue(Result.isFailure(parseScheduleCron(bad, "UTC")), bad)
    }
    for (const zone of ["+02:00", "Europe/Nowhere", "", "../etc"]) {
      assert.isTrue(Result.isFailure(parseScheduleCron("0 9 * * *", zone)), zone)
    }
    const canonical = parseScheduleCron("0  9 * * 1", "utc")
    assert.isTrue(Result.isSuccess(canonical))
    if (Result.isSuccess(canonical)) assert.deepStrictEqual([canonical.success.expression, canonical.success.timezone], ["0 9 * * 1", "UTC"])
  })
})

// The whole firing path under the TestClock: a schedule created before the switch, the clock moved in 10-minute
// steps across it, a worker pass and the AI runner at every step. The runs' instants are the rule's, once each.
const acrossSwitch = (cron: string, timezone: string, from: string, to: string) =>
  Effect.gen(function*() {
    yield* setTime(from)
    const ws = yield* entitledWorkspace()
    const schedule = yield* (yield* Schedules).create(keyOf(ws), body({ cron, timezone }))
    const end = DateTime.toEpochMillis(DateTime.makeUnsafe(to))
    for (let t = DateTime.toEpochMillis(DateTime.makeUnsafe(from)); t <= end; t += 10 * 60_000) {
      yield* setTime(new Date(t).toISOString())
      yield* firePass
      yield* runTasks
    }
    const runs = Array.from((yield* state).scheduleRuns.values()).filter((run) => run.scheduleId === schedule.id && run.status !== "pending")
    const fired = runs.map((run) => DateTime.formatIso(run.scheduledFor)).sort()
    const tasks = Array.from((yield* state).aiTasks.values()).filter((task) => Option.getOrUndefined(task.scheduleId) === schedule.id)
    assert.strictEqual(tasks.length, fired.length, "one task per run")
    assert.isTrue(runs.every((run) => run.status === "succeeded"))
    return fired
  }).pipe(Effect.provide(Domain.layerMemory))

describe("firing across daylight saving switches (TestClock)", () => {
  it.effect("Berlin spring: 02:30 daily fires at 02:30 CET, 03:00 CEST (the gap), 02:30 CEST", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* acrossSwitch("30 2 * * *", "Europe/Berlin", "2026-03-27T22:00:00Z", "2026-03-30T02:00:00Z"), [
        "2026-03-28T01:30:00.000Z",
        "2026-03-29T01:00:00.000Z",
        "2026-03-30T00:30:00.000Z"
      ])
    }))

  it.effect("Berlin autumn: half-hourly through the repeated 02:00–03:00 fires each wall time once, first pass only", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* acrossSwitch("*/30 * * * *", "Europe/Berlin", "2026-10-24T23:20:00Z", "2026-10-25T03:10:00Z"), [
        "2026-10-24T23:30:00.000Z",
        "2026-10-25T00:00:00.000Z",
        "2026-10-25T00:30:00.000Z",
        // 01:00Z and 01:30Z are 02:00 and 02:30 again (CET): not run twice.
        "2026-10-25T02:00:00.000Z",
        "2026-10-25T02:30:00.000Z",
        "2026-10-25T03:00:00.000Z"
      ])
    }))

  it.effect("New York spring: hourly skips the missing 02:00 into 03:00 EDT, no run lost, none doubled", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* acrossSwitch("0 * * * *", "America/New_York", "2026-03-08T04:30:00Z", "2026-03-08T09:10:00Z"), [
        "2026-03-08T05:00:00.000Z",
        "2026-03-08T06:00:00.000Z",
        // 02:00 EST does not exist: it runs at 03:00 EDT = 07:00Z, which is also 03:00's own run — once.
        "2026-03-08T07:00:00.000Z",
        "2026-03-08T08:00:00.000Z",
        "2026-03-08T09:00:00.000Z"
      ])
    }))

  it.effect("New York autumn: 01:30 daily fires once on the day 01:30 happens twice", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* acrossSwitch("30 1 * * *", "America/New_York", "2026-10-31T03:00:00Z", "2026-11-02T08:00:00Z"), [
        "2026-10-31T05:30:00.000Z",
        "2026-11-01T05:30:00.000Z",
        "2026-11-02T06:30:00.000Z"
      ])
    }))
})

describe("cron preview properties", () => {
  const field = (minimum: number, maximum: number) =>
    Arbitrary.schema(Schema.Union([Schema.Literal("*"), Schema.Int.check(Schema.isBetween({ minimum, maximum }))])).pipe(Arbitrary.map(String))
  // Five fields, each `*` or one value (days up to 28, so every expression matches some date).
  const cron = Arbitrary.all([field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 6)]).pipe(Arbitrary.map((fields) => fields.join(" ")))
  const after = Schema.Int.check(Schema.isBetween({ minimum: Date.UTC(2020, 0, 1), maximum: Date.UTC(2035, 0, 1) }))
  // Zones with daylight saving both ways, a 30-minute shift, a quarter-hour offset, and none.
  const zone = Schema.Literals(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/Santiago"])

  it.prop("in UTC the preview is Effect's Cron, occurrence after occurrence", [cron, after], ([expression, from]) => {
    const parsed = Result.getOrThrow(Cron.parse(expression, "UTC"))
    const expected: Array<string> = []
    let at = from
    while (expected.length < 5) {
      at = Cron.next(parsed, at).getTime()
      expected.push(new Date(at).toISOString())
    }
    assert.deepStrictEqual(upcoming(expression, "UTC", new Date(from).toISOString(), 5), expected)
  }, { arbitrary: { runs: 50 } })

  it.prop("in any zone: strictly later, on whole minutes, each the latest at its own time, and on the cron's wall time unless clocks jumped", [cron, after, zone], ([expression, from, timezone]) => {
    const parsed = cronOf(expression, timezone)
    const wall = Result.getOrThrow(Cron.parse(expression, "UTC"))
    const start = DateTime.makeUnsafe(from)
    let previous = from
    for (const occurrence of upcomingOccurrences(parsed, start, 4)) {
      const at = DateTime.toEpochMillis(occurrence)
      assert.isTrue(at > previous, `${expression} in ${timezone}`)
      assert.strictEqual(at % 60_000, 0)
      assert.deepStrictEqual(latestOccurrence(parsed, occurrence, start), Option.some(occurrence))
      const offset = DateTime.zonedOffset(DateTime.makeZonedUnsafe(at, { timeZone: parsed.zone }))
      const offsetBefore = DateTime.zonedOffset(DateTime.makeZonedUnsafe(at - 60_000, { timeZone: parsed.zone }))
      // A wall time the clocks skipped runs at the instant they jump, whose own wall time the cron may not name.
      if (offset === offsetBefore) assert.isTrue(Cron.match(wall, new Date(at + offset)), `${expression} in ${timezone} at ${occurrence}`)
      previous = at
    }
  }, { arbitrary: { runs: 40 } })
})
