import { AiTasks } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EmbeddedPostgresTemp, layerTestPorts } from "../src/testing.ts"
import { hello, setup } from "./ai-domain-contract.ts"
import { statementsOf, traced } from "./traced-statements.ts"

layer(layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 2 })), { timeout: "60 seconds", excludeTestServices: true })(
  "the SQL of a lone AI settlement on embedded PostgreSQL",
  (it) => {
    it.effect("locks its task, stores it finished with its trail, lets the subscribers react, and takes the billing lock last: four statements", () =>
      Effect.gen(function*() {
        const tasks = yield* AiTasks
        const ws = yield* setup(1_000_000)
        const settleOne = Effect.gen(function*() {
          yield* tasks.submit(...hello(ws))
          const [claimed] = yield* tasks.claim(1)
          assert.isDefined(claimed)
          return yield* statementsOf(tasks.execute(claimed!))
        })
        yield* settleOne // prepared statements and caches
        const statements = yield* settleOne
        // The billing lock, which every submission of the workspace waits for, is taken by the last statement before the
        // commit, not before the trail and the subscribers' reads.
        assert.deepStrictEqual(statements, [
          "SELECT id, workspace_id, status,", // lockTasks
          "WITH finished AS (", // saveFinished: the task, its usage record, audit entry and event
          "SELECT id, workspace_id, url,", // webhooks: the endpoints subscribed (push is told the submitter)
          "WITH charges AS MATERIALIZED" // chargeSettled: the billing lock, and the money
        ])
      }).pipe(Effect.provide(traced)))
  }
)
