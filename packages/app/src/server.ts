import { HttpAppLayer, serveLean } from "@atrium/adapters-http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import type { AppConfig } from "./app-config.ts"
import { seedDemo } from "./demo-seed.ts"
import { accessLogLayer } from "./access-log-sink.ts"
import { AppDomain } from "./domain-layer.ts"
import { RequestLogPruner } from "./request-log-pruner.ts"
import { rateLimiterLayer } from "./rate-limiter-layer.ts"
import { secretKeyCheck } from "./secret-key.ts"
import { Workers } from "./workers.ts"
import { gatedServer } from "./service-life/gated-server.ts"
import { HealthRoutes } from "./service-life/health-routes.ts"
import { Lifecycle, type LifeState } from "./service-life/lifecycle.ts"

/** The whole server: HTTP on the configured port over the domain over Postgres, once the secret key opens the stored webhook secrets; first embedded start seeds a demo. */
// A client gets 10 s to send its whole request (headers and body); then Node answers 408 and closes. Requests carry no
// deadline of their own (each dependency bounds its waits), so this bounds a client that stalls its body; the check
// runs every second rather than Node's default 30.
const requestReading = { requestTimeout: 10_000, headersTimeout: 10_000, connectionsCheckingInterval: 1_000 }

export const serverLayer = (config: AppConfig, life: LifeState = Lifecycle.make()) => {
  const domain = AppDomain.layerWith(config)
  const seed = config.database._tag === "Embedded"
    ? Layer.effectDiscard(seedDemo(`http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${config.port}`))
    : Layer.empty
  const routes = Layer.mergeAll(HttpAppLayer({ rateLimit: { limit: config.rateLimitPerMinute, window: "1 minute" } }), HealthRoutes)
  // Requests in flight when the server closes get 20 seconds to finish.
  const http = serveLean(routes).pipe(
    Layer.provide(rateLimiterLayer(config)),
    Layer.provide(accessLogLayer(config.requestLog)),
    Layer.provide(Layer.unwrap(Effect.sync(() => {
      const gate = gatedServer(requestReading)
      life.onStopAccepting(gate.stopKeepingAlive)
      return NodeHttpServer.layer(() => gate.server, { port: config.port, host: config.host, gracefulShutdownTimeout: "20 seconds" })
    })))
  )
  // Background work runs in every app process; leased claims share it out among them.
  const workers = config.workers
    ? Layer.mergeAll(Workers.layer, RequestLogPruner.layer)
    : Layer.empty
  // The key check runs first: nothing is served while webhook secrets cannot be opened.
  return Layer.mergeAll(http, seed, workers).pipe(
    Layer.provide(secretKeyCheck(config)),
    Layer.provide(Layer.merge(domain, Lifecycle.layerWith(life)))
  )
}
