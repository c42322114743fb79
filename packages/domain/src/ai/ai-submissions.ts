import { Array as Arr, Data, DateTime, Effect, Option, Result } from "effect"
import type { Scope } from "effect"
import { Digest } from "effect/crypto"
import { type Change, ChangeLog } from "../audit/index.ts"
import { monthOf } from "../billing/index.ts"
import type { Feature } from "../entitlements/index.ts"
import { IdempotencyKeyReused, makeBatchedCall, Transactor, type Unavailable } from "../shared/index.ts"
import { reserveTask, type ReservationRefusal } from "./ai-reservation.ts"
import type { AiTask } from "./ai-task.ts"
import { AiTaskRepository, type BudgetKey, type IdempotencyEntry, type IdempotencyRecord } from "./ai-task-repository.ts"
import { ReservationsNotWritten } from "./reservations-not-written.ts"

/** Reserves checked submissions in batches; each call answers with its own submission's outcome. */
export interface Submissions {
  /** Reserves `pending`'s task (or answers its key's task): in the caller's transaction if it runs in one, else in the next batch. */
  readonly reserve: (pending: PendingSubmission) => Effect.Effect<SubmissionOutcome, Unavailable>
}

/** A checked, priced submission waiting for its reservation, with the request it came in (for its audit entry). */
export interface PendingSubmission {
  readonly task: AiTask
  readonly feature: Feature
  readonly requestId: Option.Option<string>
  /** The `Idempotency-Key` it came with and the canonical text of its request. */
  readonly idempotency: { readonly key: string; readonly request: string } | undefined
}

/** A submission's key and the digest of its request. */
interface KeyUse {
  readonly key: string
  readonly requestHash: string
}

const utf8 = new TextEncoder()

// The key uses of a batch, in its order, digested all at once before its transaction: one wait for the crypto thread a
// batch. A digest each before joining spread the submissions' arrivals, and keyed batches were a third the size.
const keyUsesOf = (
  digest: Digest.Digest["Service"],
  pending: ReadonlyArray<PendingSubmission>
): Effect.Effect<ReadonlyArray<KeyUse | undefined>> =>
  !pending.some(({ idempotency }) => idempotency !== undefined) ? Effect.succeed([]) : Effect.forEach(pending, ({ idempotency }) =>
    idempotency === undefined
      ? Effect.undefined
      : digest.digestHex(Digest.sha256, utf8.encode(idempotency.request)).pipe(
        Effect.map((requestHash): KeyUse => ({ key: idempotency.key, requestHash }))
      ), { concurrency: "unbounded" })

// A batch's write that found keys of it in use and wrote nothing: failing keeps its changes from being announced.
class KeysInUse extends Data.TaggedError("KeysInUse")<{ readonly found: Arr.NonEmptyReadonlyArray<IdempotencyRecord> }> {}

/** A submitted task, and whether it is the first submission's task answered again for a repeated idempotency key. */
export interface SubmittedAiTask {
  readonly task: AiTask
  readonly replayed: boolean
}

/** A submission's answer from its batch. */
export type SubmissionOutcome = Result.Result<SubmittedAiTask, ReservationRefusal | IdempotencyKeyReused>

/**
 * Submissions in batches, running for the enclosing scope: while one batch commits the next gathers (group commit), so
 * a workspace's billing lock is taken once per batch rather than once per task.
 */
export const makeSubmissions = (options: { readonly maxBatch: number; readonly writers: number }) =>
  Effect.gen(function*() {
    const tasks = yield* AiTaskRepository
    const tx = yield* Transactor
    const changes = yield* ChangeLog
    const digest = yield* Digest.Digest

    // Answers each submission in turn against budgets read under the billing locks of their workspaces: a key known to
    // be in use replays its task (or is 409 for another request), anything else is reserved. Then it stores the
    // accepted tasks with their reservations, keys and audit entries in one statement, which also checks the keys: a
    // key found in use there writes nothing and answers the key with its task, and the batch is decided again knowing
    // it. So fresh keys cost no statement of their own, and a replay beside new tasks one more (their write again). A
    // refusal is that submission's answer and leaves the others (and its key) alone. `uses` are the submissions' keys,
    // in their order (`keyUsesOf`). Runs inside the caller's transaction.
    const reserveAll = Effect.fnUntraced(function*(pending: Arr.NonEmptyReadonlyArray<PendingSubmission>, uses: ReadonlyArray<KeyUse | undefined>) {
      const keyOf = (task: AiTask) => `${task.workspaceId}/${monthOf(task.createdAt)}`
      const keys = Arr.dedupeWith(
        Arr.map(pending, ({ task }): BudgetKey => ({ workspaceId: task.workspaceId, month: monthOf(task.createdAt) })),
        (a, b) => a.workspaceId === b.workspaceId && a.month === b.month
      )
      // Grants are judged at the latest submission's time, as a lone submission's are at its own.
      const latest = Arr.reduce(pending, pending[0].task.createdAt, (max, { task }) => DateTime.max(max, task.createdAt))
      const read = yield* tasks.lockBudgets(keys, latest)
      const idempotencyKeyOf = (workspaceId: string, key: string) => `${workspaceId}/${key}`

      // The batch's answers, given the keys known to be in use.
      const decide = Effect.fnUntraced(function*(inUse: ReadonlyMap<string, { readonly requestHash: string; readonly task: AiTask }>) {
        const budgets = new Map(Arr.zip(keys, read).map(([key, budget]) => [`${key.workspaceId}/${key.month}`, budget]))
        // An account is shared by its workspace's months (a batch may straddle two): each reservation sees the last one.
        const accounts = new Map(read.map(({ account }) => [account.workspaceId, account]))
        const taken = new Map(inUse)
        const outcomes: Array<SubmissionOutcome> = []
        const accepted: Array<PendingSubmission> = []
        const entries: Array<IdempotencyEntry> = []
        for (const [i, submission] of pending.entries()) {
          const { task } = submission
          const idempotency = uses[i]
          const used = idempotency === undefined ? undefined : taken.get(idempotencyKeyOf(task.workspaceId, idempotency.key))
          if (idempotency !== undefined && used !== undefined) {
            outcomes.push(used.requestHash === idempotency.requestHash
              ? Result.succeed({ task: used.task, replayed: true })
              : Result.fail(new IdempotencyKeyReused()))
            continue
          }
          const budget = budgets.get(keyOf(task))
          if (budget === undefined) return yield* Effect.die(new Error("lockBudgets answered no budget for a key it was given"))
          const account = accounts.get(task.workspaceId) ?? budget.account
          const reserved = reserveTask({ ...budget, account }, submission.feature, task.reservedMicros)
          if (Result.isSuccess(reserved)) {
            budgets.set(keyOf(task), reserved.success)
            accounts.set(task.workspaceId, reserved.success.account)
            accepted.push(submission)
            // Later submissions of the batch with the same key replay this task, as they would in a later batch.
            if (idempotency !== undefined) {
              taken.set(idempotencyKeyOf(task.workspaceId, idempotency.key), { requestHash: idempotency.requestHash, task })
              entries.push({ ...idempotency, taskId: task.id })
            }
          }
          outcomes.push(Result.map(reserved, (): SubmittedAiTask => ({ task, replayed: false })))
        }
        return { outcomes, accepted, entries }
      })

      // Stores a decision; its keys in use, if any, fail it before its changes are announced (nothing was written).
      const store = (accepted: Arr.NonEmptyReadonlyArray<PendingSubmission>, entries: ReadonlyArray<IdempotencyEntry>) =>
        changes.recordAllWith(
          accepted.map(({ requestId, task }): Change => ({
            workspaceId: task.workspaceId,
            actor: task.submittedBy,
            action: "ai_task.submitted",
            target: task.id,
            requestId
          })),
          (recorded) =>
            tasks.insertReserved(Arr.map(accepted, ({ task }) => task), recorded, entries).pipe(
              Effect.flatMap((found) => Arr.isReadonlyArrayNonEmpty(found) ? Effect.fail(new KeysInUse({ found })) : Effect.void)
            )
        )

      type Known = ReadonlyMap<string, { readonly requestHash: string; readonly task: AiTask }>
      const knownFrom = (records: ReadonlyArray<IdempotencyRecord>, known: Known = new Map()): Known =>
        new Map([...known, ...records.map((record) => [idempotencyKeyOf(record.workspaceId, record.key), record] as const)])
      let known: Known = new Map()
      let decision = yield* decide(known)
      // A keyed submission refused for its budget may be a replay (or a 409) the write never sees, as it writes only
      // the accepted: then the batch's keys are read first, as before the write learned to check them (rare: a
      // workspace out of credits, caps or entitlement).
      const refusedKeyed = pending.some((_, i) => {
        const outcome = decision.outcomes[i]
        return uses[i] !== undefined && outcome !== undefined && Result.isFailure(outcome) && outcome.failure._tag !== "IdempotencyKeyReused"
      })
      if (refusedKeyed) {
        const asked = Arr.dedupeWith(
          pending.flatMap(({ task }, i) => {
            const use = uses[i]
            return use === undefined ? [] : [{ workspaceId: task.workspaceId, key: use.key }]
          }),
          (a, b) => a.workspaceId === b.workspaceId && a.key === b.key
        )
        if (Arr.isReadonlyArrayNonEmpty(asked)) {
          known = knownFrom(yield* tasks.findIdempotencyKeys(asked, latest))
          decision = yield* decide(known)
        }
      }
      if (!Arr.isReadonlyArrayNonEmpty(decision.accepted)) return decision.outcomes
      const inUse = yield* store(decision.accepted, decision.entries).pipe(
        Effect.as(undefined),
        Effect.catchTag("KeysInUse", ({ found }) => Effect.succeed(found)),
        // A broken invariant, so a defect: the batcher then runs each submission alone, and only the one at fault fails.
        Effect.catchTag("ReservationsNotWritten", (refused) => Effect.die(refused))
      )
      if (inUse === undefined) return decision.outcomes
      // Replays reserve nothing, so every submission accepted before still is, and its key was checked by the write.
      const again = yield* decide(knownFrom(inUse, known))
      if (Arr.isReadonlyArrayNonEmpty(again.accepted)) {
        // Under the same locks the keys cannot change: a key in use now is a broken invariant too.
        yield* store(again.accepted, again.entries).pipe(
          Effect.catchTag("KeysInUse", ({ found }) =>
            Effect.die(new ReservationsNotWritten({ withoutAccount: [], keysInUse: found.map(({ key, workspaceId }) => ({ key, workspaceId })) }))),
          Effect.catchTag("ReservationsNotWritten", (refused) => Effect.die(refused))
        )
      }
      return again.outcomes
    })

    const submissions = yield* makeBatchedCall(
      (pending: Arr.NonEmptyReadonlyArray<PendingSubmission>) =>
        keyUsesOf(digest, pending).pipe(Effect.flatMap((uses) => tx.withTransaction(reserveAll(pending, uses)))),
      options
    )

    // Keyed or not, a submission joins the next batch (its key looked up and stored in the batch's transaction). A
    // caller inside a transaction (a schedule firing) reserves in it instead: the task commits with the caller's
    // change, and no batch waits for the caller's locks while the caller waits for the batch.
    const reserve = Effect.fnUntraced(function*(pending: PendingSubmission) {
      return (yield* tx.inTransaction)
        ? yield* keyUsesOf(digest, [pending]).pipe(Effect.flatMap((uses) => reserveAll([pending], uses)), Effect.flatMap(([alone]) =>
          alone === undefined ? Effect.die(new Error("a reservation batch of one answered nothing")) : Effect.succeed(alone)
        ))
        : yield* submissions.call(pending)
    })
    const reservations: Submissions = { reserve }
    return reservations
  }) satisfies Effect.Effect<Submissions, never, Scope.Scope | AiTaskRepository | Transactor | ChangeLog | Digest.Digest>
