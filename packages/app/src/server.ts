import { HttpAppLayer } from "@atrium/adapters-http"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { createServer } from "node:http"
import type { AppConfig } from "./app-config.ts"
import { seedDemo } from "./demo-seed.ts"
import { domainLayer } from "./domain-layer.ts"
import { workers as workersLayer } from "./workers.ts"

/** The whole server: HTTP on the configured port over the domain over Postgres; first embedded start seeds a demo. */
export const serverLayer = (config: AppConfig) => {
  const domain = domainLayer(config)
  const seed = config.database._tag === "Embedded"
    ? Layer.effectDiscard(seedDemo(`http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${config.port}`))
    : Layer.empty
  const http = HttpRouter.serve(HttpAppLayer({ rateLimit: { limit: config.rateLimitPerMinute, window: "1 minute" } }), {
    disableLogger: true
  }).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: config.port, host: config.host })))
  // Background work runs in every app process; leased claims share it out among them.
  const workers = config.workers ? workersLayer({ listen: config.database._tag === "Url" }) : Layer.empty
  return Layer.mergeAll(http, seed, workers).pipe(Layer.provide(domain))
}
