import { Context, DateTime, Effect, Layer, Option, Predicate, Schema } from "effect"
import { AiTaskEvents } from "../ai/index.ts"
import { ChangeLog, type DomainEvent, emit, type EventSubscriber } from "../audit/index.ts"
import { IdentityEvents } from "../identity/index.ts"
import { type Actor, systemActor, TaskId, type WorkspaceId } from "../shared/index.ts"
import { ScheduleEvents } from "./schedule-events.ts"
import { CurrentSchedulePolicy, pausedReasonAfter } from "./schedule-policy.ts"
import { ScheduleRepository } from "./schedule-repository.ts"
import type { PausedReason } from "./schedule.ts"

const scheduler = systemActor("schedules")

// What a task's outcome event tells a schedule; built once (a schema built per event cost ~50 µs a settled task).
const TaskOutcome = Schema.Struct({
  task: Schema.Struct({ id: TaskId, status: Schema.Literals(["succeeded", "failed"]) }),
  scheduleId: Schema.optionalKey(Schema.String)
})

// The event types a schedule reacts to: the change log hands the reactions no other event.
const reactedTypes: ReadonlySet<string> = new Set([
  IdentityEvents.memberRemoved.type,
  IdentityEvents.memberRoleChanged.type,
  AiTaskEvents.succeeded.type,
  AiTaskEvents.failed.type
])

// Told apart without decoding: a task's outcome only when a schedule submitted it (most tasks were not), so a busy
// workspace's settlements cost the schedules nothing.
const concernsSchedules = (event: DomainEvent): boolean =>
  event.type === IdentityEvents.memberRemoved.type || event.type === IdentityEvents.memberRoleChanged.type ||
  ((event.type === AiTaskEvents.succeeded.type || event.type === AiTaskEvents.failed.type) && Predicate.hasProperty(event.data, "scheduleId"))

const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, data: unknown) =>
  Schema.decodeUnknownEffect(schema)(data).pipe(Effect.option)

/**
 * The schedules area's reactions to other areas' events, inside the transaction of the change: a creator removed or
 * demoted below admin pauses their schedules; a scheduled task's outcome updates its run, the failure count, and
 * pauses a schedule that keeps failing. Identity and AI never import schedules: they only emit their events.
 */
export class ScheduleReactions extends Context.Service<ScheduleReactions, {
  /** The change-log subscriber; its own changes (pauses) are recorded through the change log it is handed. */
  readonly subscriber: EventSubscriber
}>()("@atrium/domain/ScheduleReactions") {
  static readonly layer = Layer.effect(
    ScheduleReactions,
    Effect.gen(function*() {
      const repo = yield* ScheduleRepository
      const policy = yield* CurrentSchedulePolicy

      // Lock order: runs, then the schedule (see ScheduleRepository).
      const pauseAll = Effect.fnUntraced(function*(workspaceId: WorkspaceId, creator: Actor, reason: PausedReason) {
        const changes = yield* ChangeLog
        const now = yield* DateTime.now
        for (const schedule of yield* repo.listEnabledByCreator(workspaceId, creator)) {
          yield* repo.deletePendingRuns(schedule.id)
          const locked = yield* repo.lock(workspaceId, schedule.id)
          if (Option.isNone(locked) || !locked.value.enabled) continue
          yield* repo.update(locked.value.pause(reason, now))
          yield* changes.record({
            workspaceId,
            actor: scheduler,
            action: "schedule.paused",
            target: schedule.id,
            event: emit(ScheduleEvents.paused, { scheduleId: schedule.id, reason })
          })
        }
      })

      const creatorGone = (workspaceId: WorkspaceId, userId: string) => pauseAll(workspaceId, { type: "user", id: userId }, "creator_removed")

      const taskFinished = Effect.fnUntraced(function*(workspaceId: WorkspaceId, taskId: TaskId, status: "succeeded" | "failed") {
        const changes = yield* ChangeLog
        const run = yield* repo.lockRunByTask(workspaceId, taskId)
        if (Option.isNone(run) || run.value.status !== "started") return
        yield* repo.updateRun(run.value.finished(status))
        const locked = yield* repo.lock(workspaceId, run.value.scheduleId)
        if (Option.isNone(locked)) return
        const now = yield* DateTime.now
        const counted = locked.value.taskFinished(taskId, status, now)
        const failing = status === "failed" && counted.enabled && counted.consecutiveFailures >= policy.failuresBeforePause
        if (failing) yield* repo.deletePendingRuns(counted.id)
        const reason = pausedReasonAfter("task_failed")
        yield* repo.update(failing ? counted.pause(reason, now) : counted)
        if (failing) {
          yield* changes.record({
            workspaceId,
            actor: scheduler,
            action: "schedule.paused",
            target: counted.id,
            event: emit(ScheduleEvents.paused, { scheduleId: counted.id, reason })
          })
        }
      })

      const onEvent = (event: DomainEvent) =>
        Effect.gen(function*() {
          switch (event.type) {
            case IdentityEvents.memberRemoved.type: {
              const data = yield* decode(IdentityEvents.memberRemoved.data, event.data)
              if (Option.isSome(data)) yield* creatorGone(event.workspaceId, data.value.member.userId)
              return
            }
            case IdentityEvents.memberRoleChanged.type: {
              const data = yield* decode(IdentityEvents.memberRoleChanged.data, event.data)
              if (Option.isSome(data) && data.value.member.role === "member") yield* creatorGone(event.workspaceId, data.value.member.userId)
              return
            }
            case AiTaskEvents.succeeded.type:
            case AiTaskEvents.failed.type: {
              const data = yield* decode(TaskOutcome, event.data)
              if (Option.isSome(data) && data.value.scheduleId !== undefined) {
                yield* taskFinished(event.workspaceId, data.value.task.id, data.value.task.status)
              }
              return
            }
          }
        })

      // Runs inside the emitting change's transaction, like every subscriber.
      const subscriber: EventSubscriber = {
        name: "schedules",
        eventTypes: reactedTypes,
        onChange: (change) => Option.isSome(change.event) && concernsSchedules(change.event.value) ? onEvent(change.event.value) : Effect.void
      }
      return ScheduleReactions.of({ subscriber })
    })
  )
}
