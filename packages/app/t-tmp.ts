import { EmbeddedPostgres, layerEmbedded } from "@atrium/adapters-pg"
import { Effect, Layer } from "effect"
import { chmodSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
const dir = mkdtempSync(join(tmpdir(), "atrium-t-")); chmodSync(dir, 0o711)
const dataDir = join(dir, "data")
for (const [label, layer] of [["first (initdb+start)", EmbeddedPostgres({ dataDir })], ["restart", EmbeddedPostgres({ dataDir })], ["restart+migrations", layerEmbedded({ dataDir })], ["restart+migrated", layerEmbedded({ dataDir })]] as const) {
  const t0 = performance.now()
  let built = 0
  await Effect.runPromise(Effect.gen(function*() { yield* Layer.build(layer as Layer.Layer<unknown, unknown>); built = performance.now() - t0 }).pipe(Effect.scoped))
  console.log(label, "up", built.toFixed(0), "ms, down", (performance.now() - t0 - built).toFixed(0), "ms")
}
