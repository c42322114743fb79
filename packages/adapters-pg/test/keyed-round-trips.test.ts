import { AiTasks } from "@atrium/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Tracer } from "effect"
import { EmbeddedPostgresTemp, layerTestPorts } from "../src/testing.ts"
import { domain, hello, setup } from "./ai-domain-contract.ts"

// Every span the domain opens, its submission batches' statements included (they run in fibers of the layer, so the
// tracer is given to the layer).
const spans: Array<Tracer.NativeSpan> = []
const tracer = Tracer.make({
  span: (options) => {
    const span = new Tracer.NativeSpan(options)
    spans.push(span)
    return span
  }
})
const traced = domain.pipe(Layer.provide(Layer.succeed(Tracer.Tracer, tracer)))

// The SQL statements `effect` ran, by their text.
const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const from = spans.length
    yield* effect
    return spans.slice(from).flatMap((span) => {
      const text = span.attributes.get("db.query.text")
      return typeof text === "string" ? [text.trim().split(/\s+/).slice(0, 4).join(" ")] : []
    })
  })

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
