import { AiTasks, type SubmitAiTaskError, type SubmittedAiTask, type WorkspaceId } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { EmbeddedPostgresTemp, layerTestPorts } from "../src/testing.ts"
import { domain, hello, setup } from "./ai-domain-contract.ts"

// The embedded default's pool less its listener: 2 connections, both taken by the two submission writers at once (so
// both plan the key lookup early), on a server of its own (the test changes how it plans).
const target = layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 2 }))

const keys = 400
const unkeyed = 1000

// Index entries of the idempotency keys read so far (as the server's statistics have them: a little late, never more).
const keyEntriesRead = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ readonly read: number }>`
    SELECT COALESCE(sum(idx_tup_read), 0)::int AS read FROM pg_stat_user_indexes WHERE relname = 'idempotency_keys'
  `
  return row?.read ?? 0
})

/** Each key twice with one body and, for every tenth, once more between them with another body. */
const keyedBurst = (workspaceId: WorkspaceId) =>
  Array.from({ length: keys }, (_, i) => [
    hello(workspaceId, { idempotencyKey: `burst-${i}` }),
    ...(i % 10 === 0 ? [hello(workspaceId, { idempotencyKey: `burst-${i}`, input: { prompt: "another body" } })] : []),
    hello(workspaceId, { idempotencyKey: `burst-${i}` })
  ]).flat()

type Answer = { readonly taskId: string; readonly replayed: boolean } | { readonly refused: "IdempotencyKeyReused" }

// A 409 is an answer; anything else (a statement past its timeout is Unavailable) fails the test at once.
const answerOf = (submitted: Effect.Effect<SubmittedAiTask, SubmitAiTaskError>) =>
  submitted.pipe(
    Effect.map((ok): Answer => ({ taskId: ok.task.id, replayed: ok.replayed })),
    Effect.catchTag("IdempotencyKeyReused", () => Effect.succeed<Answer>({ refused: "IdempotencyKeyReused" }))
  )

layer(target, { timeout: "180 seconds", excludeTestServices: true })("keyed AI submissions in a burst on embedded PostgreSQL", (it) => {
  it.effect(
    "a burst over a thousand tasks, on plans made for a new workspace: one task per key, its repeats replay it, another body is 409, each key read by its primary key",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // Every prepared statement keeps the plan it gets first, made for the few rows of a new workspace: what a pool
        // can hold on to while the tables grow faster than autovacuum analyses them (a fresh install's first load, a bench).
        yield* sql`ALTER SYSTEM SET plan_cache_mode = force_generic_plan`
        yield* sql`SELECT pg_reload_conf()`
        const ws = yield* setup(1_000_000_000)
        const tasks = yield* AiTasks
        // A few submissions one at a time, then a few at once so that every connection of the pool plans them.
        for (let i = 0; i < 20; i++) yield* tasks.submit(...hello(ws, { maxOutputTokens: 1 }))
        for (let i = 0; i < 20; i++) yield* tasks.submit(...hello(ws, { idempotencyKey: `early-${i}` }))
        for (let round = 0; round < 3; round++) {
          yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => tasks.submit(...hello(ws, { idempotencyKey: `early-${round}-${i}` })), {
            concurrency: "unbounded",
            discard: true
          })
        }
        yield* Effect.forEach(Array.from({ length: unkeyed }, (_, i) => i), () => tasks.submit(...hello(ws, { maxOutputTokens: 1 })), {
          concurrency: 32,
          discard: true
        })
        const readBefore = yield* keyEntriesRead
        const burst = keyedBurst(ws)
        const answers = yield* Effect.forEach(burst, (submission) => answerOf(tasks.submit(...submission)), { concurrency: 64 })

        // Each key of the burst is looked up by its primary key a few times (read, checked, stored): not once per task of
        // the workspace, as the stalled lookup did (millions of entries here, seconds a statement at a few thousand tasks).
        assert.isBelow((yield* keyEntriesRead) - readBefore, 20 * burst.length)

        // Per key: one task created, every submission with its creator's body answered with that task, any other 409.
        const byKey = new Map<string, Array<{ readonly body: string; readonly answer: Answer }>>()
        for (const [i, [, input]] of burst.entries()) {
          const answer = answers[i]
          if (answer === undefined || input.idempotencyKey === undefined) return assert.fail("an answer is missing")
          const body = "prompt" in input.input ? input.input.prompt : ""
          byKey.set(input.idempotencyKey, [...(byKey.get(input.idempotencyKey) ?? []), { body, answer }])
        }
        assert.strictEqual(byKey.size, keys)
        let reused = 0
        for (const [key, uses] of byKey) {
          const created = uses.filter(({ answer }) => "taskId" in answer && !answer.replayed)
          assert.strictEqual(created.length, 1, `key ${key}: ${JSON.stringify(uses)}`)
          const [first] = created
          if (first === undefined || !("taskId" in first.answer)) return assert.fail(`key ${key} created nothing`)
          for (const { answer, body } of uses) {
            if (body === first.body) assert.deepInclude(answer, { taskId: first.answer.taskId }, `key ${key}`)
            else {
              assert.deepStrictEqual(answer, { refused: "IdempotencyKeyReused" }, `key ${key}`)
              reused++
            }
          }
        }
        assert.isAtLeast(reused, keys / 10)

        const [stored] = yield* sql<{ readonly tasks: number; readonly keys: number; readonly distinct_tasks: number }>`
          SELECT (SELECT count(*)::int FROM ai_tasks WHERE workspace_id = ${ws}) AS tasks,
                 (SELECT count(*)::int FROM idempotency_keys WHERE workspace_id = ${ws} AND key LIKE 'burst-%') AS keys,
                 (SELECT count(DISTINCT task_id)::int FROM idempotency_keys WHERE workspace_id = ${ws} AND key LIKE 'burst-%') AS distinct_tasks
        `
        assert.deepStrictEqual(stored, { tasks: 20 + 20 + 30 + unkeyed + keys, keys, distinct_tasks: keys })
      }).pipe(Effect.provide(domain)),
    120_000
  )
})
