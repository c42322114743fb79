// Node modules by path: the package index loads every one it has (cluster, workers, sockets, the Redis client), ~9 MB of heap.
import { Cause, Duration, Effect, Layer, Logger, References, Runtime } from "effect"
import { constants } from "node:os"
import { appConfig } from "./app-config.ts"
import { serverLayer } from "./server.ts"
import { Lifecycle } from "./service-life/lifecycle.ts"
import { telemetryLayer } from "./telemetry-layer.ts"

// What a stop takes at most once accepting has stopped: requests in flight get 20 s, workers 10 s, then the database.
const stopBound = Duration.seconds(40)

const life = Lifecycle.make()

// SIGTERM/SIGINT: readiness turns 503 at once; the server keeps serving for the drain delay (a balancer notices), then
// stops accepting and the layers shut down in order: requests begun are answered, workers finish or leave their leases.
const program = Effect.gen(function*() {
  const config = yield* appConfig
  const stopAsked = Effect.promise(() => life.drainBegun).pipe(
    Effect.andThen(Effect.logInfo(`draining: readiness is 503; serving ${Duration.format(config.drainDelay)} more, then stopping (a second signal exits at once)`)),
    Effect.andThen(Effect.sleep(config.drainDelay)),
    Effect.andThen(Effect.sync(() => {
      life.stopAccepting()
      // A stop that cannot finish (a request that never ends) must not keep the process.
      setTimeout(() => process.exit(1), Duration.toMillis(stopBound)).unref()
    })),
    Effect.andThen(Effect.logInfo("stopping: no new connections; answering the requests begun"))
  )
  yield* Layer.launch(serverLayer(config, life).pipe(Layer.provide(telemetryLayer(config)))).pipe(
    Effect.raceFirst(stopAsked),
    Effect.provideService(References.MinimumLogLevel, config.logLevel)
  )
})

// A stop that shut every layer down cleanly is a successful exit.
const teardown: Runtime.Teardown = (exit, onExit) =>
  exit._tag === "Failure" && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

// A warning outside the Effect logger (its stdout may be what failed), shaped like the app's other log lines.
const warnOnStderr = (message: string) =>
  void process.stderr.write(`${JSON.stringify({ message, level: "WARN", timestamp: new Date().toISOString() })}\n`)

// The first signal drains; a second one exits at once.
const runMain = Runtime.makeRunMain(({ fiber, teardown }) => {
  const onSignal = (signal: NodeJS.Signals) => {
    if (life.draining()) process.exit(128 + constants.signals[signal])
    life.beginDrain()
  }
  fiber.addObserver((exit) => {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    teardown(exit, (code) => process.exit(code))
  })
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  // npm does not pass a SIGTERM sent to npm alone on to the server: npm and its shell end and the server is left to
  // init. Its parent gone, it stops as if signalled, so `kill <pid of npm start>` drains it instead of orphaning it.
  // Only under an npm script (which npm waits for): a server started with `nohup … &` outlives its shell on purpose.
  if (process.env.npm_lifecycle_event === undefined) return
  const parent = process.ppid
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(orphaned)
    if (life.draining()) return
    warnOnStderr(`the process that started this server (${parent}) is gone: stopping`)
    life.beginDrain()
  }, 1_000)
  orphaned.unref()
})

// A closed stdout (its reader gone) fails writes with EPIPE: the lines are lost, the server must go on serving, and
// says so once on stderr, where an operator whose log pipe died may still look.
let stdoutOpen = true
process.stdout.on("error", (error) => {
  if (!stdoutOpen) return
  stdoutOpen = false
  warnOnStderr(`stdout failed (${"code" in error ? String(error.code) : error.message}): log lines are lost from here on; serving on`)
})

// Written in batches (one write per 50 ms, flushed on shutdown): a line per request must not cost a write per request.
const JsonLogs = Logger.layer([
  Logger.batched(Logger.formatJson, {
    window: "50 millis",
    flush: (lines) => Effect.sync(() => void (stdoutOpen && process.stdout.write(`${lines.join("\n")}\n`)))
  })
])

runMain(program.pipe(Effect.provide(JsonLogs)), { teardown })
