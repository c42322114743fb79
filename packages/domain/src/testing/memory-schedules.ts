import { DateTime, Effect, Layer, Option } from "effect"
import { Schedule, ScheduleRepository, ScheduleRun } from "../schedules/index.ts"
import type { DateTime as DT } from "effect"
import { pageBy, pageOf, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const runKey = (scheduleId: string, at: DT.Utc) => `${scheduleId}/${millis(at)}`

/** In-memory schedules and runs, with the same uniqueness, lease and ordering rules as the Postgres version. */
export const ScheduleRepositoryMemory = Layer.effect(
  ScheduleRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    const save = (schedule: Schedule) => write((s) => ({ ...s, schedules: withEntry(s.schedules, schedule.id, schedule) }))
    const saveRun = (run: ScheduleRun) => write((s) => ({ ...s, scheduleRuns: withEntry(s.scheduleRuns, runKey(run.scheduleId, run.scheduledFor), run) }))
    const find = (workspaceId: string, id: string) =>
      read.pipe(Effect.map((s) => Option.fromNullishOr(s.schedules.get(id)).pipe(Option.filter((x) => x.workspaceId === workspaceId))))
    const withoutRuns = (runs: ReadonlyMap<string, ScheduleRun>, drop: (run: ScheduleRun) => boolean) =>
      new Map(Array.from(runs).filter(([, run]) => !drop(run)))
    return ScheduleRepository.of({
      insert: save,
      update: save,
      find,
      lock: find,
      delete: (workspaceId, id) =>
        write((s) => {
          if (s.schedules.get(id)?.workspaceId !== workspaceId) return s
          const schedules = new Map(s.schedules)
          schedules.delete(id)
          return { ...s, schedules, scheduleRuns: withoutRuns(s.scheduleRuns, (run) => run.scheduleId === id) }
        }),
      list: (workspaceId, page) =>
        read.pipe(Effect.map((s) =>
          pageOf(
            Array.from(s.schedules.values()).filter((x) => x.workspaceId === workspaceId)
              .sort((a, b) => millis(b.createdAt) - millis(a.createdAt) || b.id.localeCompare(a.id)),
            page
          )
        )),
      countForCreate: (workspaceId) => read.pipe(Effect.map((s) => Array.from(s.schedules.values()).filter((x) => x.workspaceId === workspaceId).length)),
      listEnabledByCreator: (workspaceId, actor) =>
        read.pipe(Effect.map((s) =>
          Array.from(s.schedules.values()).filter((x) =>
            x.workspaceId === workspaceId && x.enabled && x.createdBy.type === actor.type && x.createdBy.id === actor.id
          )
        )),
      insertRun: (run) =>
        modify((s) => {
          const key = runKey(run.scheduleId, run.scheduledFor)
          if (s.scheduleRuns.has(key)) return [false, s]
          return [true, { ...s, scheduleRuns: withEntry(s.scheduleRuns, key, run) }]
        }),
      lockRun: (scheduleId, at) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.scheduleRuns.get(runKey(scheduleId, at))))),
      lockRunByTask: (workspaceId, taskId) =>
        read.pipe(Effect.map((s) =>
          Option.fromNullishOr(
            Array.from(s.scheduleRuns.values()).find((run) => run.workspaceId === workspaceId && Option.getOrUndefined(run.taskId) === taskId)
          )
        )),
      updateRun: saveRun,
      deleteRun: (scheduleId, at) =>
        write((s) => ({ ...s, scheduleRuns: withoutRuns(s.scheduleRuns, (run) => run.scheduleId === scheduleId && millis(run.scheduledFor) === millis(at)) })),
      deletePendingRuns: (scheduleId) =>
        write((s) => ({ ...s, scheduleRuns: withoutRuns(s.scheduleRuns, (run) => run.scheduleId === scheduleId && run.status === "pending") })),
      listRuns: (workspaceId, scheduleId, page) =>
        read.pipe(Effect.map((s) =>
          // Newest occurrence first; the shared cursor names the occurrence's instant.
          pageBy(
            Array.from(s.scheduleRuns.values())
              .filter((run) => run.workspaceId === workspaceId && run.scheduleId === scheduleId && run.status !== "pending"),
            page,
            (run) => ({ createdAt: run.scheduledFor, id: run.scheduleId })
          )
        )),
      claimDueRuns: (now, limit, leaseUntil) =>
        modify((s) => {
          const due = Array.from(s.scheduleRuns.values())
            .filter((run) => run.status === "pending" && Option.isSome(run.dueAt) && !DateTime.isGreaterThan(run.dueAt.value, now))
            .sort((a, b) =>
              millis(Option.getOrElse(a.dueAt, () => now)) - millis(Option.getOrElse(b.dueAt, () => now)) || a.scheduleId.localeCompare(b.scheduleId)
            )
            .slice(0, Math.max(0, limit))
          const leased = due.map((run) => new ScheduleRun({ ...run, attempts: run.attempts + 1, dueAt: Option.some(leaseUntil) }))
          return [leased, { ...s, scheduleRuns: leased.reduce((map, run) => withEntry(map, runKey(run.scheduleId, run.scheduledFor), run), s.scheduleRuns) }]
        })
    })
  })
)
