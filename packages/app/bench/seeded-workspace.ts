// A workspace for the load benches, seeded in-process over the target database before the server starts on it: the
// local model entitled, credits for far more tasks than a run submits, and a `write` key.
import { ApiKeys, Entitlements, Feature, Usage, Workspaces } from "@atrium/domain"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import type { AppConfig } from "../src/app-config.ts"
import { AppDomain } from "../src/domain-layer.ts"
import { makeSpanCounter, statementsPerSubmission } from "./ai-statements.ts"
import { benchConfig } from "./webhook-bench.ts"
import { operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"

const seed = Effect.gen(function*() {
  const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "AI bench" })
  yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "trial" })
  yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 1_000_000_000)
  const { plaintext } = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "bench", scopes: ["write"] })
  return Redacted.value(plaintext)
})

/** Seeds in-process, then closes that domain before the server starts on the same data: the key and the SQL one submission costs. */
export const seeded = async (database: AppConfig["database"], secretKey: string) => {
  const scope = Effect.runSync(Scope.make())
  const counter = makeSpanCounter()
  const context = await Effect.runPromise(Layer.buildWithScope(AppDomain.layerWith(benchConfig(database, secretKey)).pipe(Layer.provideMerge(counter.layer)), scope))
  const key = await Effect.runPromise(Effect.provide(seed, context))
  const statements = await Effect.runPromise(Effect.provide(statementsPerSubmission(counter), context))
  await Effect.runPromise(Scope.close(scope, Exit.void))
  return { key, statements }
}

