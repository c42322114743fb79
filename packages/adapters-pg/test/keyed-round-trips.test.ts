import { AiTasks } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EmbeddedPostgresTemp, layerTestPorts } from "../src/testing.ts"
import { hello, setup } from "./ai-domain-contract.ts"
import { statementsOf, traced } from "./traced-statements.ts"

layer(layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 2 })), { timeout: "60 seconds", excludeTestServices: true })(
  "the SQL of keyed AI submissions on embedded PostgreSQL",
  (it) => {
    it.effect("a fresh Idempotency-Key costs the statements of an unkeyed submission, and so does its replay", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const ws = yield* setup(1_000_000)
        yield* tasks.submit(...hello(ws)) // prepared statements and caches
        const plain = yield* statementsOf(tasks.submit(...hello(ws)))
        const keyed = yield* statementsOf(tasks.submit(...hello(ws, { idempotencyKey: "fresh" })))
        const replay = yield* statementsOf(tasks.submit(...hello(ws, { idempotencyKey: "fresh" })))
        // The budgets' lock and read, then the write (which checks the keys): no lookup of the key before it.
        assert.strictEqual(plain.length, 2, plain.join(" | "))
        assert.deepStrictEqual(keyed, plain)
        assert.deepStrictEqual(replay, plain)
      }).pipe(Effect.provide(traced)))
  }
)
