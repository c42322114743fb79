// Profiles one in-process delivery worker on a fresh database of the DATABASE_URL server: CPU profile of the delivery
// phase only.
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { AppDomain } from "../src/domain-layer.ts"
import { freshDatabase } from "./fresh-database.ts"
import { Workers } from "../src/workers.ts"
import { startReceiver } from "./loopback-receiver.ts"
import { benchConfig, enqueueFor, removeEndpoints, succeededDeliveries } from "./webhook-bench.ts"

const database = await freshDatabase(process.env.DATABASE_URL ?? "", "webhook_profile")
const url = database.url
const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1000)
const scope = Effect.runSync(Scope.make())
const context = await Effect.runPromise(Layer.buildWithScope(AppDomain.layerWith(benchConfig({ _tag: "Url", url: Redacted.make(url) }, randomBytes(32).toString("base64"))), scope))
const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(effect)
const receiver = await startReceiver()
const workspace = await run(Effect.provide(enqueueFor(receiver.url, events), context))
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
const began = performance.now()
// CPU time is steadier than wall time on a shared machine; it counts the in-process receiver too.
const cpuBefore = process.cpuUsage()
const workerScope = Effect.runSync(Scope.make())
await run(Effect.provide(Layer.buildWithScope(Workers.layerWith({ listen: true, only: ["WebhookDeliveries"], tuning: { concurrency: Number(process.env.BENCH_CONCURRENCY ?? 64), perKey: Number(process.env.BENCH_PER_KEY ?? 8) } }), workerScope), context))
let recorded = 0
while (recorded < events * 10) {
  recorded = await run(Effect.provide(succeededDeliveries(workspace.id), context))
  await new Promise((resolve) => setTimeout(resolve, 5))
}
const seconds = (performance.now() - began) / 1000
const cpu = process.cpuUsage(cpuBefore)
const { profile } = await session.post("Profiler.stop")
writeFileSync(process.env.PROFILE_OUT ?? "/tmp/webhook.cpuprofile", JSON.stringify(profile))
console.log(`${recorded} in ${seconds.toFixed(2)} s = ${(recorded / seconds).toFixed(0)}/s, ${((cpu.user + cpu.system) / recorded).toFixed(0)} µs CPU per delivery (worker and receiver)`)
await Effect.runPromise(Scope.close(workerScope, Exit.void))
await receiver.close()
await run(Effect.provide(removeEndpoints(workspace.id), context))
await Effect.runPromise(Scope.close(scope, Exit.void))
await database.drop()
