import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { Schedules } from "./schedules.ts"

/** Schedule firing: leased occurrences, each fired in one step (at most one task per occurrence, however many processes run). */
export const scheduleWork: Effect.Effect<ReadonlyArray<Work>, never, Schedules> = Effect.map(Schedules, (schedules) => [
  declareWork({ name: "schedules", claim: schedules.claim, step: schedules.fire, keyOf: (run) => run.scheduleId }, { concurrency: 16, idlePoll: "500 millis" })
])
