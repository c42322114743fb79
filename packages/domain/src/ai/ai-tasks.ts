import { Context, DateTime, Duration, Effect, Layer, Option, Result, Schema, Semaphore } from "effect"
import { Digest } from "effect/crypto"
import { type Actor, CurrentRequestId } from "../shared/index.ts"
import { type Acting, actorOf, Forbidden, type InsufficientScope, permits } from "../access/index.ts"
import { exceedsInputLimit, worstCaseCostMicros } from "./ai-pricing.ts"
import { AiTask, type AiTaskInput, type AiTaskMetadata, AiTaskRequest } from "./ai-task.ts"
import type { BillingRepository, InsufficientCredits, UsageCapReached } from "../billing/index.ts"
import type { ChangeLog } from "../audit/index.ts"
import { type IdempotencyKeyReused, InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import type { NotEntitled } from "../entitlements/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { type ScheduleId, TaskId } from "../shared/index.ts"
import { ModelCatalog } from "./model-catalog.ts"
import { AiCompletion } from "./ai-completion.ts"
import { AiProvider, ProviderError } from "./ai-provider.ts"
import { AiTaskRepository } from "./ai-task-repository.ts"
import type { SettlementOutcome } from "./ai-settlement.ts"
import { makeSettlements } from "./ai-settlements.ts"
import { makeSubmissions, type PendingSubmission, type SubmittedAiTask } from "./ai-submissions.ts"
import { Transactor } from "../shared/index.ts"
import type { WorkQueue } from "../shared/index.ts"

/** Tunables of task execution, with the documented defaults. */
export interface AiTaskPolicy {
  /** Limit of one provider call. */
  readonly timeout: Duration.Duration
  /** How long a claim is held; longer than the timeout, so only a crashed worker's claims come back. */
  readonly lease: Duration.Duration
  /** Claims a task gets in all (provider retries and crashed workers alike) before it fails. */
  readonly maxAttempts: number
  /** Delay before retry n (index n-1) after a retryable provider failure; the last one repeats. */
  readonly retryDelays: ReadonlyArray<Duration.Duration>
  /**
   * Settlement transactions (each settling a group of tasks) and requeues in one process at once. Each holds a database
   * connection while provider calls hold none, so this, not the worker's concurrency, bounds what the worker takes from
   * the pool that submissions share.
   */
  readonly settlements?: number | undefined
}

/** The defaults: 60 s per provider call, 90 s lease, 3 attempts, retries after 10 s and 60 s, one settlement at a time. */
export const defaultAiTaskPolicy: AiTaskPolicy = {
  timeout: Duration.seconds(60),
  lease: Duration.seconds(90),
  maxAttempts: 3,
  retryDelays: [Duration.seconds(10), Duration.seconds(60)],
  settlements: 1
}

/** What submitting a task needs; the workspace and actor come from the acting principal, never the body. */
export interface SubmitAiTaskInput {
  readonly model: string
  readonly input: AiTaskInput
  readonly maxOutputTokens?: number | undefined
  readonly metadata?: AiTaskMetadata | undefined
  /** The `Idempotency-Key` header: the same key and body within 24 h answer with the first task. */
  readonly idempotencyKey?: string | undefined
  /** The schedule submitting it, carried by the task and its `ai_task.*` events. */
  readonly scheduleId?: ScheduleId | undefined
  /** Whom the task is submitted for (a schedule's creator); only the system may name one, anyone else is `Forbidden`. */
  readonly onBehalfOf?: Actor | undefined
}

/** Every way a submission is refused. */
export type SubmitAiTaskError = Forbidden | InsufficientScope | InvalidInput | NotEntitled | UsageCapReached | InsufficientCredits | IdempotencyKeyReused | Unavailable

// Visible ASCII, as an HTTP header value carries it.
const idempotencyKeyPattern = /^[\x21-\x7E]{1,255}$/
// Provider messages reach the workspace; keep them short.
const maxErrorMessage = 500

/** A stable text of what was asked (model, input, output bound, metadata); its digest tells a replay from a reused key. */
const canonicalRequest = (request: AiTaskRequest) => {
  const input = "prompt" in request.input
    ? { prompt: request.input.prompt }
    : { messages: request.input.messages.map((m) => ({ role: m.role, content: m.content })) }
  const metadata = request.metadata === undefined
    ? null
    : Object.entries(request.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify([request.model, input, request.maxOutputTokens ?? null, metadata])
}

// Up to 128 submissions per transaction, two transactions in flight: throughput for one busy workspace, few connections.
const submissionBatching = { maxBatch: 128, writers: 2 }

// Most tasks settled in one transaction: the worker's claims come 32 at a time, and a group is computed in one go on
// the thread that also serves requests, so a bounded group keeps that stretch short.
const settlementBatch = 64

const failedWith = (code: string, message: string): SettlementOutcome => ({ _tag: "Failed", error: { code, message: message.slice(0, maxErrorMessage) } })

// Every provider answer passes the schema before it is settled: an absurd count fails its own task, nothing else.
const decodeCompletion = Schema.decodeUnknownEffect(AiCompletion)

/**
 * AI tasks: submission with worst-case reservation, the durable execution queue, and settlement to the real cost.
 * Submitting needs `ai_tasks.submit` and reading `ai_tasks.read`, asked here of the acting principal, in its workspace.
 */
export class AiTasks extends Context.Service<AiTasks, {
  /** Checks permission, model, entitlement, caps and credits in that order, and reserves the worst case with the new task. */
  readonly submit: (principal: Acting, input: SubmitAiTaskInput) => Effect.Effect<SubmittedAiTask, SubmitAiTaskError>
  /** A task of the principal's workspace; another workspace's id is not found. */
  readonly get: (principal: Acting, id: TaskId) => Effect.Effect<AiTask, Forbidden | InsufficientScope | NotFound | Unavailable>
  /** Leases up to `limit` due tasks to this worker. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<AiTask>, Unavailable>
  /** Runs a claimed task on its provider and settles it, or queues it for a retry; returns the task as it now stands. */
  readonly execute: (task: AiTask) => Effect.Effect<AiTask, Unavailable>
  /**
   * Fails a task whose step died (a defect, not a provider failure), releasing its reservation; the defect's details
   * stay in the logs, the workspace sees `internal_error`. Settles once, like every outcome.
   */
  readonly failDefect: (task: AiTask) => Effect.Effect<AiTask, Unavailable>
}>()("@atrium/domain/AiTasks") {
  // Written out: inferred, `Digest` (now required through ai-submissions.ts) would be named by another module path.
  static readonly layerWith = (
    policy: AiTaskPolicy
  ): Layer.Layer<AiTasks, never, AiProvider | AiTaskRepository | BillingRepository | ChangeLog | Digest.Digest | IdGenerator | ModelCatalog | Transactor> =>
    Layer.effect(
      AiTasks,
      Effect.gen(function*() {
        const tasks = yield* AiTaskRepository
        const catalog = yield* ModelCatalog
        const provider = yield* AiProvider
        const tx = yield* Transactor
        const ids = yield* IdGenerator

        const invalid = (detail: string) => new InvalidInput({ detail })
        const submissions = yield* makeSubmissions(submissionBatching)

        const submit = Effect.fn("AiTasks.submit")(function*(principal: Acting, submission: SubmitAiTaskInput) {
          yield* permits(principal, "ai_tasks.submit")
          const { workspaceId } = principal
          if (submission.onBehalfOf !== undefined && principal._tag !== "SystemPrincipal") {
            return yield* new Forbidden({ detail: "Only the system submits a task on someone else's behalf" })
          }
          const actor = submission.onBehalfOf ?? actorOf(principal)
          // 400s next: nothing is read or reserved for a request that cannot run.
          const request = yield* Schema.decodeUnknownEffect(AiTaskRequest)({
            model: submission.model,
            input: submission.input,
            maxOutputTokens: submission.maxOutputTokens,
            metadata: submission.metadata
          }).pipe(Effect.mapError((error) => invalid(error.message)))
          const key = submission.idempotencyKey
          if (key !== undefined && !idempotencyKeyPattern.test(key)) {
            return yield* invalid("Idempotency-Key must be 1–255 visible ASCII characters")
          }
          const found = yield* catalog.find(request.model)
          if (Option.isNone(found)) return yield* invalid(`Unknown model "${request.model}"; see GET /api/v1/models/requirements`)
          const spec = found.value
          if (exceedsInputLimit(spec, request.input)) {
            return yield* invalid(`The input exceeds the ${spec.maxInputTokens}-token input limit of ${spec.model}`)
          }
          const maxOutputTokens = request.maxOutputTokens ?? spec.maxOutputTokens
          if (maxOutputTokens > spec.maxOutputTokens) {
            return yield* invalid(`maxOutputTokens may be at most ${spec.maxOutputTokens} for ${spec.model}`)
          }
          const reservedMicros = worstCaseCostMicros(spec, request.input, maxOutputTokens)
          const now = yield* DateTime.now
          const task = new AiTask({
            id: TaskId.make(yield* ids.make("task")),
            workspaceId,
            model: spec.model,
            status: "queued",
            input: request.input,
            maxOutputTokens,
            metadata: request.metadata ?? {},
            output: Option.none(),
            inputTokens: Option.none(),
            outputTokens: Option.none(),
            costMicros: Option.none(),
            reservedMicros,
            error: Option.none(),
            attempts: 0,
            nextAttemptAt: Option.some(now),
            submittedBy: actor,
            scheduleId: Option.fromNullishOr(submission.scheduleId),
            createdAt: now,
            startedAt: Option.none(),
            finishedAt: Option.none()
          })

          const pending: PendingSubmission = {
            task,
            feature: spec.requiredFeature,
            requestId: yield* CurrentRequestId,
            idempotency: key === undefined ? undefined : { key, request: canonicalRequest(request) }
          }
          const outcome = yield* submissions.reserve(pending)
          if (Result.isFailure(outcome)) return yield* outcome.failure
          return outcome.success
        })

        const get = Effect.fn("AiTasks.get")(function*(principal: Acting, id: TaskId) {
          yield* permits(principal, "ai_tasks.read")
          const found = yield* tasks.findById(principal.workspaceId, id)
          if (Option.isNone(found)) return yield* new NotFound({ resource: "ai_task" })
          return found.value
        })

        const claim = Effect.fn("AiTasks.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          return yield* tasks.claimDue(now, limit, DateTime.addDuration(now, policy.lease))
        })

        const settlements = yield* makeSettlements({ maxBatch: settlementBatch, writers: Math.max(1, policy.settlements ?? 1) })
        const settle = settlements.settle
        const requeueSlots = yield* Semaphore.make(Math.max(1, policy.settlements ?? 1))

        // Puts the task back in the queue for a later attempt, unless it finished or another worker took it meanwhile.
        const requeue = Effect.fnUntraced(function*(claimed: AiTask, delay: Duration.Duration) {
          return yield* requeueSlots.withPermits(1)(tx.withTransaction(Effect.gen(function*() {
            const stored = yield* tasks.findById(claimed.workspaceId, claimed.id)
            if (Option.isNone(stored)) return claimed
            const current = stored.value
            if (current.isFinished || current.attempts !== claimed.attempts) return current
            const queued = new AiTask({ ...current, status: "queued", nextAttemptAt: Option.some(DateTime.addDuration(yield* DateTime.now, delay)) })
            yield* tasks.update(queued)
            return queued
          })))
        })

        const execute = Effect.fn("AiTasks.execute")(function*(task: AiTask) {
          if (task.isFinished) return task
          const found = yield* catalog.find(task.model)
          if (Option.isNone(found)) return yield* settle(task, failedWith("provider_rejected", `The model ${task.model} is no longer offered`))
          const spec = found.value
          // A task whose worker keeps dying is given up on rather than claimed forever.
          if (task.attempts > policy.maxAttempts) {
            return yield* settle(task, failedWith("provider_error", `Gave up after ${policy.maxAttempts} attempts`))
          }
          const result = yield* provider.complete({ spec, input: task.input, maxOutputTokens: task.maxOutputTokens }).pipe(
            Effect.timeoutOption(policy.timeout),
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new ProviderError({ code: "provider_timeout", retryable: true, message: `The provider did not answer within ${Duration.format(policy.timeout)}` })),
              onSome: Effect.succeed
            })),
            Effect.result
          )
          if (Result.isSuccess(result)) {
            const completion = yield* Effect.result(decodeCompletion(result.success))
            return Result.isSuccess(completion)
              ? yield* settle(task, { _tag: "Succeeded", spec, completion: completion.success })
              : yield* settle(task, failedWith("provider_invalid_response", "The provider's answer was invalid (malformed, or token counts out of range)"))
          }
          const error = result.failure
          if (error.retryable && task.attempts < policy.maxAttempts) {
            const delays = policy.retryDelays
            const delay = delays[Math.min(task.attempts, delays.length) - 1] ?? Duration.seconds(10)
            return yield* requeue(task, delay)
          }
          return yield* settle(task, failedWith(error.code, error.message))
        })

        const failDefect = Effect.fn("AiTasks.failDefect")(function*(task: AiTask) {
          return yield* settle(task, failedWith("internal_error", "The task could not be completed"))
        })

        return AiTasks.of({ submit, get, claim, execute, failDefect })
      })
    )

  static readonly layer = AiTasks.layerWith(defaultAiTaskPolicy)

  /**
   * The task queue for `runWorker`: one provider call and its settlement per step; a step that dies fails that task
   * alone (its reservation released), never the rest of the batch.
   */
  static readonly queue = Effect.gen(function*() {
    const tasks = yield* AiTasks
    const queue: WorkQueue<AiTask> = {
      name: "AiTasks",
      claim: tasks.claim,
      step: tasks.execute,
      onDefect: tasks.failDefect
    }
    return queue
  })
}
