// Counts the SQL round trips of AI submissions from the spans `effect/sql` opens: one per statement, plus
// BEGIN/COMMIT per transaction and SAVEPOINT/RELEASE per nested one (these run without a statement span).
import { AiTasks, Entitlements, Feature, systemActor, Usage, Workspaces } from "@atrium/domain"
import { Effect, Tracer } from "effect"

const actor = systemActor("bench")
const sequential = 20

/** Round trips of `effect`, as its spans show them, and the statements' text. */
const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    yield* Effect.withTracer(effect, tracer)
    const statements = spans.filter((span) => span.attributes.has("db.query.text"))
    const transactions = spans.filter((span) => span.name === "sql.transaction")
    const roots = transactions.filter((span) => span.events.some(([name]) => name.endsWith(".commit") || name.endsWith(".rollback"))).length
    const nested = transactions.length - roots
    return { statements: statements.length, roundTrips: statements.length + 2 * transactions.length, roots, nested }
  })

const describe = (count: { readonly statements: number; readonly roundTrips: number; readonly roots: number; readonly nested: number }, n: number) =>
  `${(count.roundTrips / n).toFixed(1)} round trips (${(count.statements / n).toFixed(1)} statements, ` +
  `${(count.roots / n).toFixed(1)} transactions, ${(count.nested / n).toFixed(1)} savepoints)`

/** One after the other (no batching possible), without and with an `Idempotency-Key`. */
export const statementsPerSubmission = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create({ name: "Statement count", actor })
  yield* (yield* Entitlements).grant({ workspaceId: workspace.id, feature: Feature.make("ai.basic"), source: "trial", actor })
  yield* (yield* Usage).addCredits(workspace.id, 1_000_000, actor)
  const tasks = yield* AiTasks
  const submit = (i: number, idempotencyKey?: string) =>
    tasks.submit({ workspaceId: workspace.id, actor, model: "atrium-local-1", input: { prompt: `hi ${i}` }, maxOutputTokens: 1, idempotencyKey })
  yield* submit(-1) // warm-up: prepared statements
  const plain = yield* counted(Effect.forEach(Array.from({ length: sequential }, (_, i) => i), (i) => submit(i), { discard: true }))
  const keyed = yield* counted(Effect.forEach(Array.from({ length: sequential }, (_, i) => i), (i) => submit(i, `key-${i}`), { discard: true }))
  return `${describe(plain, sequential)}; with an Idempotency-Key ${describe(keyed, sequential)}`
}).pipe(Effect.orDie)
