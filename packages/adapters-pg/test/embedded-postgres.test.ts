import { WorkspaceRepository } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Option } from "effect"
import { layerEmbedded } from "../src/index.ts"
import { makeWorkspace } from "./fixtures.ts"

describe("EmbeddedPostgres", () => {
  it.live("persists in its data directory across restarts", () =>
    Effect.gen(function*() {
      const dataDir = yield* Effect.acquireRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "atrium-pglite-"))),
        (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )
      const workspace = makeWorkspace()
      // Each provide starts PGlite, migrates, and shuts it down cleanly when done.
      yield* WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.insert(workspace)), Effect.provide(layerEmbedded({ dataDir })))
      const found = yield* WorkspaceRepository.pipe(Effect.flatMap((repo) => repo.findById(workspace.id)), Effect.provide(layerEmbedded({ dataDir })))
      assert.deepStrictEqual(found, Option.some(workspace))
    }), 60_000)
})
