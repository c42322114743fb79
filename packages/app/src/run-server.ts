// Node modules by path: the package index loads every one it has (cluster, workers, sockets, the Redis client), ~9 MB of heap.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Layer, Logger, Runtime } from "effect"
import { appConfig } from "./app-config.ts"
import { serverLayer } from "./server.ts"
import { telemetryLayer } from "./telemetry-layer.ts"

// JSON log lines; the logger never sees a secret because none is ever logged.
const program = Effect.gen(function*() {
  const config = yield* appConfig
  yield* Layer.launch(serverLayer(config).pipe(Layer.provide(telemetryLayer(config))))
})

// SIGTERM/SIGINT interrupt the program; once every layer has shut down cleanly that is a successful exit.
const teardown: Runtime.Teardown = (exit, onExit) =>
  exit._tag === "Failure" && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

// Written in batches (one write per 50 ms, flushed on shutdown): a line per request must not cost a write per request.
const JsonLogs = Logger.layer([
  Logger.batched(Logger.formatJson, {
    window: "50 millis",
    flush: (lines) => Effect.sync(() => void process.stdout.write(`${lines.join("\n")}\n`))
  })
])

program.pipe(Effect.provide(JsonLogs), NodeRuntime.runMain({ teardown }))
