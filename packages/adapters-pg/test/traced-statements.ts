import { Effect, Layer, Tracer } from "effect"
import { domain } from "./ai-domain-contract.ts"

// Every span the domain opens, its batches' statements included (they run in fibers of the layer, so the tracer is
// given to the layer).
const spans: Array<Tracer.NativeSpan> = []
const tracer = Tracer.make({
  span: (options) => {
    const span = new Tracer.NativeSpan(options)
    spans.push(span)
    return span
  }
})

/** The AI contract's domain, every span it opens recorded. */
export const traced = domain.pipe(Layer.provide(Layer.succeed(Tracer.Tracer, tracer)))

/** The SQL statements `effect` ran under `traced`, each by its first four words. */
export const statementsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const from = spans.length
    yield* effect
    return spans.slice(from).flatMap((span) => {
      const text = span.attributes.get("db.query.text")
      return typeof text === "string" ? [text.trim().split(/\s+/).slice(0, 4).join(" ")] : []
    })
  })
