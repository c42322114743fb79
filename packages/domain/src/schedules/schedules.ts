import { Context, DateTime, Duration, Effect, Layer, Option, Result } from "effect"
import { actorOf, type Forbidden, type InsufficientScope, permits, type Principal, SystemPrincipal } from "../access/index.ts"
import { AiTasks, ModelCatalog } from "../ai/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { EntitlementRepository, featuresInForce, NotEntitled } from "../entitlements/index.ts"
import {
  type Actor,
  Conflict,
  IdGenerator,
  InvalidInput,
  NotFound,
  type Page,
  type PageRequest,
  ScheduleId,
  systemActor,
  type TaskId,
  Transactor,
  type Unavailable,
  type WorkspaceId
} from "../shared/index.ts"
import { parseScheduleCron, type ScheduleCron, upcomingOccurrences, latestOccurrence } from "./schedule-cron.ts"
import { ScheduleEvents } from "./schedule-events.ts"
import type { CreateScheduleInput, UpdateScheduleInput } from "./schedule-input.ts"
import { CurrentSchedulePolicy, pausedReasonAfter, type SchedulePolicy } from "./schedule-policy.ts"
import { ScheduleRepository } from "./schedule-repository.ts"
import { maxSchedulesPerWorkspace, Schedule, ScheduleRun, type SkipReason } from "./schedule.ts"

/** Every way a schedule call is refused for who is asking. */
export type ScheduleAccessError = Forbidden | InsufficientScope

const scheduler = systemActor("schedules")
const notFound = () => new NotFound({ resource: "schedule" })

/** The cron of a stored schedule; it was checked when saved, so failing now is a defect (a zone left the database). */
const cronOf = (schedule: Schedule) =>
  Result.match(parseScheduleCron(schedule.cron, schedule.timezone), {
    onSuccess: (cron) => Effect.succeed(cron),
    onFailure: (issues) => Effect.die(new Error(`stored schedule ${schedule.id} has an invalid cron: ${issues.map((i) => i.message).join("; ")}`))
  })

/** Checks a cron and zone for a caller: the problems name their fields. */
const checkCron = (cron: string, timezone: string) =>
  Result.match(parseScheduleCron(cron, timezone), {
    onSuccess: (parsed) => Effect.succeed(parsed),
    onFailure: (issues) => Effect.fail(new InvalidInput({ detail: issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ") }))
  })

/** How a firing ended. */
type Fired =
  | { readonly _tag: "Started"; readonly run: ScheduleRun; readonly taskId: TaskId }
  | { readonly _tag: "Skipped"; readonly run: ScheduleRun; readonly reason: SkipReason }

/**
 * Schedules: recurring AI tasks on a cron in the workspace's time zone. Every method asks the access policy itself
 * (`permits`: `schedules.read` / `schedules.write`). Firing submits through
 * `AiTasks.submit` — entitlement, caps and credits checked exactly as for a direct submission — with the idempotency
 * key `schedule:<id>:<instant>`, so however many processes fire an occurrence, it makes one task and one reservation.
 */
export class Schedules extends Context.Service<Schedules, {
  readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<Schedule>, ScheduleAccessError | Unavailable>
  /** At most 50 per workspace; the creator is the actor its tasks are submitted as. */
  /** The task's model must be one the workspace is entitled to now, as for a direct submission (403 `not_entitled`). */
  readonly create: (
    principal: Principal,
    input: CreateScheduleInput
  ) => Effect.Effect<Schedule, ScheduleAccessError | InvalidInput | NotEntitled | Conflict | Unavailable>
  readonly get: (principal: Principal, id: ScheduleId) => Effect.Effect<Schedule, ScheduleAccessError | NotFound | Unavailable>
  /** Absent fields stay; `enabled` pauses (`manual`) or resumes; a new task is checked as at creation. */
  readonly update: (
    principal: Principal,
    id: ScheduleId,
    patch: UpdateScheduleInput
  ) => Effect.Effect<Schedule, ScheduleAccessError | NotFound | InvalidInput | NotEntitled | Unavailable>
  readonly remove: (principal: Principal, id: ScheduleId) => Effect.Effect<void, ScheduleAccessError | NotFound | Unavailable>
  readonly pause: (principal: Principal, id: ScheduleId) => Effect.Effect<Schedule, ScheduleAccessError | NotFound | Unavailable>
  /** Resumes with a clean failure count; a schedule paused because its creator left now runs as the one resuming it. */
  readonly resume: (principal: Principal, id: ScheduleId) => Effect.Effect<Schedule, ScheduleAccessError | NotFound | Unavailable>
  /** Fires once now, under the same rules as an occurrence (overlap, refusals); a paused schedule is a conflict. */
  readonly runNow: (principal: Principal, id: ScheduleId) => Effect.Effect<ScheduleRun, ScheduleAccessError | NotFound | Conflict | Unavailable>
  /** Fired runs, newest first, each with its task id and status. */
  readonly runs: (principal: Principal, id: ScheduleId, page: PageRequest) => Effect.Effect<Page<ScheduleRun>, ScheduleAccessError | NotFound | Unavailable>
  /** The next `count` instants of a cron in a zone (also its validation). */
  readonly preview: (cron: string, timezone: string, count?: number) => Effect.Effect<ReadonlyArray<DateTime.Utc>, InvalidInput>
  /** Leases up to `limit` due occurrences to this worker. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<ScheduleRun>, Unavailable>
  /** One whole step of a claimed occurrence: catch-up, overlap, submit or skip, next occurrence — in one transaction. */
  readonly fire: (run: ScheduleRun) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/Schedules") {
  static readonly layer = Layer.effect(
    Schedules,
    Effect.gen(function*() {
      const repo = yield* ScheduleRepository
      const aiTasks = yield* AiTasks
      const catalog = yield* ModelCatalog
      const grants = yield* EntitlementRepository
      const tx = yield* Transactor
      const ids = yield* IdGenerator
      const changes = yield* ChangeLog
      const policy: SchedulePolicy = yield* CurrentSchedulePolicy

      const find = Effect.fnUntraced(function*(principal: Principal, id: ScheduleId) {
        const found = yield* repo.find(principal.workspaceId, id)
        if (Option.isNone(found)) return yield* notFound()
        return found.value
      })

      // Lock order: the schedule's runs first, then the schedule (see ScheduleRepository).
      const lockForChange = Effect.fnUntraced(function*(principal: Principal, id: ScheduleId) {
        yield* repo.deletePendingRuns(id)
        const locked = yield* repo.lock(principal.workspaceId, id)
        if (Option.isNone(locked)) return yield* notFound()
        return locked.value
      })

      // Saves a schedule and the pending run of its next occurrence (the worker's queue item).
      const save = Effect.fnUntraced(function*(schedule: Schedule, now: DateTime.Utc) {
        yield* repo.update(schedule)
        if (Option.isSome(schedule.nextRunAt)) yield* repo.insertRun(ScheduleRun.pending(schedule, schedule.nextRunAt.value, "schedule", now))
      })

      // A task the workspace could not submit now is refused now, by the submission's rule (a grant in force of the
      // model's required feature), rather than accepted and skipped until the schedule pauses itself.
      const checkTask = Effect.fnUntraced(function*(workspaceId: WorkspaceId, model: string) {
        const spec = yield* catalog.find(model)
        if (Option.isNone(spec)) {
          return yield* new InvalidInput({ detail: `task.model: unknown model "${model}"; see GET /api/v1/models/requirements` })
        }
        const held = featuresInForce(yield* grants.listByWorkspace(workspaceId), yield* DateTime.now)
        if (!held.has(spec.value.requiredFeature)) return yield* new NotEntitled({ feature: spec.value.requiredFeature })
      })

      const checkWindow = (schedule: Schedule) =>
        Option.isSome(schedule.startsAt) && Option.isSome(schedule.endsAt) && !DateTime.isLessThan(schedule.startsAt.value, schedule.endsAt.value)
          ? Effect.fail(new InvalidInput({ detail: "endsAt: must be after startsAt" }))
          : Effect.void

      const recordPaused = (schedule: Schedule, actor: Actor) =>
        Option.match(schedule.pausedReason, {
          onNone: () => Effect.void,
          onSome: (reason) =>
            changes.record({
              workspaceId: schedule.workspaceId,
              actor,
              action: "schedule.paused",
              target: schedule.id,
              event: emit(ScheduleEvents.paused, { scheduleId: schedule.id, reason })
            }).pipe(Effect.asVoid)
        })

      const list = Effect.fn("Schedules.list")(function*(principal: Principal, page: PageRequest) {
        yield* permits(principal, "schedules.read")
        return yield* repo.list(principal.workspaceId, page)
      })

      const get = Effect.fn("Schedules.get")(function*(principal: Principal, id: ScheduleId) {
        yield* permits(principal, "schedules.read")
        return yield* find(principal, id)
      })

      const create = Effect.fn("Schedules.create")(function*(principal: Principal, input: CreateScheduleInput) {
        yield* permits(principal, "schedules.write")
        const cron = yield* checkCron(input.cron, input.timezone)
        yield* checkTask(principal.workspaceId, input.task.model)
        const now = yield* DateTime.now
        const enabled = input.enabled ?? true
        const draft = new Schedule({
          id: ScheduleId.make(yield* ids.make("sch")),
          workspaceId: principal.workspaceId,
          name: input.name,
          cron: cron.expression,
          timezone: cron.timezone,
          task: input.task,
          enabled,
          createdBy: actorOf(principal),
          catchUp: input.catchUp ?? "latest",
          overlap: input.overlap ?? "skip",
          startsAt: Option.fromNullishOr(input.startsAt),
          endsAt: Option.fromNullishOr(input.endsAt),
          maxRuns: Option.fromNullishOr(input.maxRuns),
          runCount: 0,
          consecutiveFailures: 0,
          nextRunAt: Option.none(),
          lastRun: Option.none(),
          pausedReason: enabled ? Option.none() : Option.some("manual"),
          createdAt: now,
          updatedAt: now
        })
        yield* checkWindow(draft)
        const schedule = new Schedule({ ...draft, nextRunAt: draft.nextAfter(cron, now) })
        return yield* tx.withTransaction(Effect.gen(function*() {
          if ((yield* repo.countForCreate(principal.workspaceId)) >= maxSchedulesPerWorkspace) {
            return yield* new Conflict({ detail: `A workspace holds at most ${maxSchedulesPerWorkspace} schedules` })
          }
          yield* repo.insert(schedule)
          if (Option.isSome(schedule.nextRunAt)) yield* repo.insertRun(ScheduleRun.pending(schedule, schedule.nextRunAt.value, "schedule", now))
          yield* changes.record({ workspaceId: schedule.workspaceId, actor: actorOf(principal), action: "schedule.created", target: schedule.id })
          return schedule
        }))
      })

      const update = Effect.fn("Schedules.update")(function*(principal: Principal, id: ScheduleId, patch: UpdateScheduleInput) {
        yield* permits(principal, "schedules.write")
        const current = yield* find(principal, id)
        const cron = yield* checkCron(patch.cron ?? current.cron, patch.timezone ?? current.timezone)
        if (patch.task !== undefined) yield* checkTask(principal.workspaceId, patch.task.model)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* lockForChange(principal, id)
          const now = yield* DateTime.now
          const changed = new Schedule({
            ...locked,
            name: patch.name ?? locked.name,
            cron: cron.expression,
            timezone: cron.timezone,
            task: patch.task ?? locked.task,
            catchUp: patch.catchUp ?? locked.catchUp,
            overlap: patch.overlap ?? locked.overlap,
            startsAt: patch.startsAt === undefined ? locked.startsAt : Option.fromNullishOr(patch.startsAt),
            endsAt: patch.endsAt === undefined ? locked.endsAt : Option.fromNullishOr(patch.endsAt),
            maxRuns: patch.maxRuns === undefined ? locked.maxRuns : Option.fromNullishOr(patch.maxRuns),
            updatedAt: now
          })
          yield* checkWindow(changed)
          const pausing = patch.enabled === false && changed.enabled
          const next = pausing
            ? changed.pause("manual", now)
            : patch.enabled === true && !changed.enabled
            ? changed.resume(cron, now, runAsAfterResume(changed, principal))
            : changed.advance(cron, now, now)
          yield* save(next, now)
          yield* changes.record({ workspaceId: next.workspaceId, actor: actorOf(principal), action: "schedule.updated", target: next.id })
          if (pausing) yield* recordPaused(next, actorOf(principal))
          return next
        }))
      })

      const remove = Effect.fn("Schedules.remove")(function*(principal: Principal, id: ScheduleId) {
        yield* permits(principal, "schedules.write")
        yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* lockForChange(principal, id)
          yield* repo.delete(locked.workspaceId, locked.id)
          yield* changes.record({ workspaceId: locked.workspaceId, actor: actorOf(principal), action: "schedule.deleted", target: locked.id })
        }))
      })

      const pause = Effect.fn("Schedules.pause")(function*(principal: Principal, id: ScheduleId) {
        yield* permits(principal, "schedules.write")
        return yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* lockForChange(principal, id)
          if (!locked.enabled) return locked
          const paused = locked.pause("manual", yield* DateTime.now)
          yield* repo.update(paused)
          yield* recordPaused(paused, actorOf(principal))
          return paused
        }))
      })

      const resume = Effect.fn("Schedules.resume")(function*(principal: Principal, id: ScheduleId) {
        yield* permits(principal, "schedules.write")
        return yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* lockForChange(principal, id)
          const now = yield* DateTime.now
          const cron = yield* cronOf(locked)
          // Already enabled: only its pending run is put back (it was cleared above).
          const resumed = locked.enabled ? locked.advance(cron, now, now) : locked.resume(cron, now, runAsAfterResume(locked, principal))
          yield* save(resumed, now)
          if (!locked.enabled) yield* changes.record({ workspaceId: resumed.workspaceId, actor: actorOf(principal), action: "schedule.resumed", target: resumed.id })
          return resumed
        }))
      })

      /** Fires `run` (pending, locked) for `schedule`: overlap, then the AI task path; refusals become skipped runs. */
      const submitRun = Effect.fnUntraced(function*(schedule: Schedule, run: ScheduleRun, now: DateTime.Utc) {
        if (schedule.overlap === "skip" && schedule.previousRunInFlight) {
          const fired: Fired = { _tag: "Skipped", run: run.skip("overlap", now), reason: "overlap" }
          return fired
        }
        // A run acts as the system narrowed to submitting tasks, for the creator: a creator's later demotion or a key's
        // revocation is the schedule reactions' to act on (they pause it), and the run cannot do anything but submit.
        const scheduler = new SystemPrincipal({ name: "scheduler", workspaceId: schedule.workspaceId, permissions: ["ai_tasks.submit"] })
        const submitted = yield* aiTasks.submit(scheduler, {
          onBehalfOf: schedule.createdBy,
          model: schedule.task.model,
          input: schedule.task.input,
          maxOutputTokens: schedule.task.maxOutputTokens,
          metadata: schedule.task.metadata,
          idempotencyKey: run.idempotencyKey,
          scheduleId: schedule.id
        }).pipe(
          Effect.map((ok): Fired => ({ _tag: "Started", run: run.started(ok.task.id, now), taskId: ok.task.id })),
          Effect.catchTags({
            NotEntitled: () => Effect.succeed<Fired>({ _tag: "Skipped", run: run.skip("not_entitled", now), reason: "not_entitled" }),
            UsageCapReached: () => Effect.succeed<Fired>({ _tag: "Skipped", run: run.skip("usage_cap_reached", now), reason: "usage_cap_reached" }),
            InsufficientCredits: () => Effect.succeed<Fired>({ _tag: "Skipped", run: run.skip("insufficient_credits", now), reason: "insufficient_credits" }),
            InvalidInput: () => Effect.succeed<Fired>({ _tag: "Skipped", run: run.skip("invalid_task", now), reason: "invalid_task" }),
            IdempotencyKeyReused: () => Effect.succeed<Fired>({ _tag: "Skipped", run: run.skip("invalid_task", now), reason: "invalid_task" }),
            // The scheduler holds ai_tasks.submit by construction: a refusal is a bug, not a skipped run.
            Forbidden: Effect.die,
            InsufficientScope: Effect.die
          })
        )
        return submitted
      })

      /** Records a firing's outcome on the run and on the freshly locked schedule; pauses one that keeps failing. */
      const settleRun = Effect.fnUntraced(function*(
        fired: Fired,
        actor: Actor,
        next: (schedule: Schedule) => Schedule,
        now: DateTime.Utc
      ) {
        const run = fired.run
        yield* repo.updateRun(run)
        const locked = yield* repo.lock(run.workspaceId, run.scheduleId)
        if (Option.isNone(locked)) return
        const counted = fired._tag === "Started"
          ? locked.value.fired(run.scheduledFor, fired.taskId, now)
          : locked.value.skipped(run.scheduledFor, fired.reason, now)
        const failing = fired._tag === "Skipped" && counted.enabled && counted.consecutiveFailures >= policy.failuresBeforePause
        if (failing) yield* repo.deletePendingRuns(counted.id)
        const after = failing ? counted.pause(pausedReasonAfter(fired.reason), now) : next(counted)
        yield* save(after, now)
        const scheduledFor = DateTime.formatIso(run.scheduledFor)
        if (fired._tag === "Started") {
          yield* changes.record({
            workspaceId: run.workspaceId,
            actor,
            action: "schedule.run_started",
            target: run.scheduleId,
            event: emit(ScheduleEvents.runStarted, { scheduleId: run.scheduleId, scheduledFor, taskId: fired.taskId })
          })
        } else {
          yield* changes.record({
            workspaceId: run.workspaceId,
            actor,
            action: "schedule.run_skipped",
            target: run.scheduleId,
            event: emit(ScheduleEvents.runSkipped, { scheduleId: run.scheduleId, scheduledFor, reason: fired.reason })
          })
        }
        if (failing) yield* recordPaused(after, scheduler)
      })

      // An occurrence no server fired in time, passed over by catch-up: neither a refusal nor a failure.
      const recordMissed = Effect.fnUntraced(function*(run: ScheduleRun, now: DateTime.Utc) {
        yield* repo.updateRun(run.skip("missed", now))
        yield* changes.record({
          workspaceId: run.workspaceId,
          actor: scheduler,
          action: "schedule.run_skipped",
          target: run.scheduleId,
          event: emit(ScheduleEvents.runSkipped, { scheduleId: run.scheduleId, scheduledFor: DateTime.formatIso(run.scheduledFor), reason: "missed" })
        })
      })

      const runNow = Effect.fn("Schedules.runNow")(function*(principal: Principal, id: ScheduleId) {
        yield* permits(principal, "schedules.write")
        return yield* tx.withTransaction(Effect.gen(function*() {
          const schedule = yield* find(principal, id)
          if (!schedule.enabled) return yield* new Conflict({ detail: "The schedule is paused; resume it first" })
          const now = yield* DateTime.now
          const run = ScheduleRun.pending(schedule, now, "manual", now)
          if (!(yield* repo.insertRun(run))) return yield* new Conflict({ detail: "A run for this instant exists already" })
          const fired = yield* submitRun(schedule, run, now)
          // A manual run leaves the cron's next occurrence where it was.
          yield* settleRun(fired, actorOf(principal), (s) => s, now)
          return fired.run
        }))
      })

      const runs = Effect.fn("Schedules.runs")(function*(principal: Principal, id: ScheduleId, page: PageRequest) {
        yield* permits(principal, "schedules.read")
        yield* find(principal, id)
        return yield* repo.listRuns(principal.workspaceId, id, page)
      })

      const preview = Effect.fn("Schedules.preview")(function*(cronText: string, timezone: string, count = 5) {
        const cron = yield* checkCron(cronText, timezone)
        return upcomingOccurrences(cron, yield* DateTime.now, Math.max(1, Math.min(count, 50)))
      })

      const claim = Effect.fn("Schedules.claim")(function*(limit: number) {
        const now = yield* DateTime.now
        return yield* repo.claimDueRuns(now, limit, DateTime.addDuration(now, policy.lease))
      })

      // The occurrence to fire for a claimed one, by the catch-up rule; none when it is to be dropped.
      const catchUp = (schedule: Schedule, cron: ScheduleCron, run: ScheduleRun, now: DateTime.Utc) => {
        const latest = Option.getOrElse(latestOccurrence(cron, now, run.scheduledFor), () => run.scheduledFor)
        const missed = DateTime.isGreaterThan(latest, run.scheduledFor) ||
          Duration.isGreaterThan(Duration.millis(DateTime.toEpochMillis(now) - DateTime.toEpochMillis(run.scheduledFor)), policy.missedAfter)
        if (!missed) return Option.some(run.scheduledFor)
        // After downtime: one run for the most recent occurrence (`latest`), or none.
        return schedule.catchUp === "latest" ? Option.some(latest) : Option.none()
      }

      const fire = Effect.fn("Schedules.fire")(function*(claimed: ScheduleRun) {
        yield* tx.withTransaction(Effect.gen(function*() {
          const locked = yield* repo.lockRun(claimed.scheduleId, claimed.scheduledFor)
          // Fired meanwhile (another worker whose lease ran out first) or gone: nothing to do.
          if (Option.isNone(locked) || locked.value.status !== "pending") return
          const run = locked.value
          const found = yield* repo.find(run.workspaceId, run.scheduleId)
          if (Option.isNone(found)) return
          const schedule = found.value
          const now = yield* DateTime.now
          const current = run.trigger === "manual" ||
            schedule.enabled && Option.exists(schedule.nextRunAt, (next) => DateTime.Equivalence(next, run.scheduledFor))
          // A leftover of an edit or a pause: the schedule has moved on.
          if (!current) return yield* repo.deleteRun(run.scheduleId, run.scheduledFor)
          const cron = yield* cronOf(schedule)
          const target = catchUp(schedule, cron, run, now)
          const givenUp = run.attempts > policy.maxAttempts
          // Catch-up passed this occurrence over: it stays in the runs as skipped (`missed`), and says so in an event.
          if (!givenUp && !Option.exists(target, (at) => DateTime.Equivalence(at, run.scheduledFor))) yield* recordMissed(run, now)
          if (Option.isNone(target) || givenUp) {
            // Dropped (missed under `catchUp: none`, or a step that keeps dying): on to the next occurrence after now.
            yield* repo.deletePendingRuns(schedule.id)
            const relocked = yield* repo.lock(schedule.workspaceId, schedule.id)
            if (Option.isSome(relocked)) yield* save(relocked.value.advance(cron, now, now), now)
            return
          }
          const at = target.value
          let firing = run
          if (!DateTime.Equivalence(at, run.scheduledFor)) {
            yield* repo.deletePendingRuns(schedule.id)
            firing = ScheduleRun.pending(schedule, at, "schedule", now)
            // Already fired for that instant (a manual run at the same millisecond): only move on.
            if (!(yield* repo.insertRun(firing))) {
              const relocked = yield* repo.lock(schedule.workspaceId, schedule.id)
              if (Option.isSome(relocked)) yield* save(relocked.value.advance(cron, at, now), now)
              return
            }
          }
          const fired = yield* submitRun(schedule, firing, now)
          yield* settleRun(fired, scheduler, (s) => s.advance(cron, at, now), now)
        }))
      })

      return Schedules.of({ list, create, get, update, remove, pause, resume, runNow, runs, preview, claim, fire })
    })
  )

  /** The service with a policy other than the default. */
  static readonly layerWith = (policy: SchedulePolicy) => Schedules.layer.pipe(Layer.provide(Layer.succeed(CurrentSchedulePolicy, policy)))
}

/** Who a resumed schedule runs as: its creator, unless it was paused because the creator left (then the one resuming). */
const runAsAfterResume = (schedule: Schedule, principal: Principal): Actor =>
  Option.exists(schedule.pausedReason, (reason) => reason === "creator_removed") ? actorOf(principal) : schedule.createdBy
