// Counts the SQL round trips of AI submissions from the spans `effect/sql` opens: one per statement, plus
// BEGIN/COMMIT per transaction and SAVEPOINT/RELEASE per nested one (these run without a statement span).
import { AiTasks, Entitlements, Feature, Usage, Workspaces } from "@atrium/domain"
import { operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { Effect, Layer, Tracer } from "effect"
import { Workers } from "../src/workers.ts"

const sequential = 20

/** Spans of everything built with `layer` (batches run in fibers of the layer, so the tracer must be there). */
export const makeSpanCounter = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { layer: Layer.succeed(Tracer.Tracer, tracer), spans }
}

/** A span counter. */
export type SpanCounter = ReturnType<typeof makeSpanCounter>

// Round trips of `effect`, as the spans it opened show them.
const counted = <A, E, R>(counter: SpanCounter, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const from = counter.spans.length
    yield* effect
    const spans = counter.spans.slice(from)
    const statements = spans.filter((span) => span.attributes.has("db.query.text"))
    const transactions = spans.filter((span) => span.name === "sql.transaction")
    const roots = transactions.filter((span) => span.events.some(([name]) => name.endsWith(".commit") || name.endsWith(".rollback"))).length
    const nested = transactions.length - roots
    if (process.env.BENCH_SQL_TIMES === "1") {
      // Mean time per kind of statement and per transaction, to see where a batch spends its time.
      const millis = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? Number(span.status.endTime - span.status.startTime) / 1e6 : Number.NaN
      const groups = new Map<string, Array<number>>()
      for (const span of [...statements, ...transactions]) {
        const name = span.name === "sql.transaction" ? "transaction" : String(span.attributes.get("db.query.text")).trim().replace(/\s+/g, " ").slice(0, 60)
        groups.set(name, [...(groups.get(name) ?? []), millis(span)])
      }
      for (const [name, times] of groups) console.log(`    ${(times.reduce((a, b) => a + b, 0) / times.length).toFixed(2)} ms × ${times.length}  ${name}`)
    }
    return { statements: statements.length, roundTrips: statements.length + 2 * transactions.length, roots, nested }
  })

const describe = (count: { readonly statements: number; readonly roundTrips: number; readonly roots: number; readonly nested: number }, n: number) =>
  `${(count.roundTrips / n).toFixed(1)} round trips (${(count.statements / n).toFixed(1)} statements, ` +
  `${(count.roots / n).toFixed(1)} transactions, ${(count.nested / n).toFixed(1)} savepoints)`

/** One after the other (no batching possible), without and with an `Idempotency-Key`. */
export const statementsPerSubmission = (counter: SpanCounter) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Statement count" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "trial" })
    yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 1_000_000)
    const tasks = yield* AiTasks
    const submit = (i: number, idempotencyKey?: string) =>
      tasks.submit(systemPrincipal(workspace.id), { model: "atrium-local-1", input: { prompt: `hi ${i}` }, maxOutputTokens: 1, idempotencyKey })
    const run = (keyed: boolean) =>
      counted(counter, Effect.forEach(Array.from({ length: sequential }, (_, i) => i), (i) => submit(i, keyed ? `key-${i}` : undefined), { discard: true }))
    yield* submit(-1) // warm-up: prepared statements
    const plain = yield* run(false)
    const keyed = yield* run(true)
    // In-process, 32 at once: what the domain and database sustain without HTTP, and the batches they form.
    const many = 3000
    const began = performance.now()
    const concurrent = yield* counted(counter, Effect.forEach(Array.from({ length: many }, (_, i) => i), (i) => submit(i), { concurrency: 32, discard: true }))
    const perSecond = many / ((performance.now() - began) / 1000)
    // The same with a fresh Idempotency-Key each: keyed submissions share the batches too.
    const keyedBegan = performance.now()
    const concurrentKeyed = yield* counted(
      counter,
      Effect.forEach(Array.from({ length: many }, (_, i) => i), (i) => submit(i, `burst-${i}`), { concurrency: 32, discard: true })
    )
    const keyedPerSecond = many / ((performance.now() - keyedBegan) / 1000)
    // The app's task worker settles them (claims, provider calls, settlement groups); the polls for the end are not counted.
    const usage = yield* Usage
    let polls = 0
    const settleBegan = performance.now()
    const settled = yield* counted(counter, Effect.scoped(Effect.gen(function*() {
      yield* Layer.build(Workers.layerWith({ listen: true, only: ["AiTasks"], tuning: { idlePoll: "20 millis" } }))
      for (;;) {
        const from = counter.spans.length
        const held = (yield* usage.current(systemPrincipal(workspace.id))).reservedMicros
        polls += counter.spans.slice(from).filter((span) => span.attributes.has("db.query.text")).length
        if (held === 0) return
        yield* Effect.sleep("20 millis")
      }
    })))
    const submitted = 2 * many
    const settledPerSecond = submitted / ((performance.now() - settleBegan) / 1000)
    const settlementStatements = settled.statements - polls
    return `${describe(plain, sequential)}; with an Idempotency-Key ${describe(keyed, sequential)}\n` +
      `  in-process, 32 at once: ${Math.round(perSecond)} submissions/s, ${describe(concurrent, many)}, ${(many / Math.max(1, concurrent.roots)).toFixed(1)} per batch\n` +
      `  in-process, 32 at once, keyed: ${Math.round(keyedPerSecond)} submissions/s, ${describe(concurrentKeyed, many)}, ` +
      `${(many / Math.max(1, concurrentKeyed.roots)).toFixed(1)} per batch\n` +
      `  settled by the task worker: ${Math.round(settledPerSecond)}/s, ${((settlementStatements + 2 * settled.roots) / submitted).toFixed(2)} round trips a task ` +
      `(${(settlementStatements / submitted).toFixed(2)} statements, ${(settled.roots / submitted).toFixed(3)} transactions, ${(settled.nested / submitted).toFixed(3)} savepoints)`
  }).pipe(Effect.orDie)
