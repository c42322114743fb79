import { problemType } from "@atrium/adapters-http"
import { CurrentRequestId } from "@atrium/domain"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql/SqlClient"
import { Lifecycle } from "./lifecycle.ts"

/** The paths a balancer or orchestrator checks; outside the versioned API and its documents. */
const healthPaths = { live: "/healthz", ready: "/readyz" } as const

const noStore = { "cache-control": "no-store" }

// Not ready is a problem document like every other 503 (the envelope would make it one), with what is not ready.
const answer = (reasons: ReadonlyArray<string>) =>
  reasons.length === 0
    ? Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ready" }, { headers: noStore }))
    : Effect.map(CurrentRequestId, (requestId) =>
      HttpServerResponse.jsonUnsafe({
        type: problemType("unavailable"),
        title: "Not ready",
        status: 503,
        code: "unavailable",
        detail: `not ready: ${reasons.join("; ")}`,
        reasons,
        requestId: Option.getOrNull(requestId)
      }, { status: 503, contentType: "application/problem+json", headers: { ...noStore, "retry-after": "1" } }))

/**
 * `GET /healthz`: the process lives (touches nothing). `GET /readyz`: it can serve — its routes answer (so the handler is
 * attached), the schema was migrated before they were built, the database answers within a second, and it is not
 * draining; otherwise 503 with what is not ready.
 */
export const HealthRoutes = Layer.unwrap(Effect.gen(function*() {
  const sql = yield* SqlClient
  const life = yield* Lifecycle
  const database = sql`SELECT 1`.pipe(
    Effect.timeoutOption(Duration.seconds(1)),
    Effect.map((answered) => answered._tag === "Some" ? [] : ["database: no answer within 1 second"]),
    Effect.catch(() => Effect.succeed(["database: unavailable"]))
  )
  const ready = Effect.suspend(() => life.draining() ? answer(["draining"]) : Effect.flatMap(database, answer))
  return Layer.merge(
    HttpRouter.add("GET", healthPaths.live, HttpServerResponse.jsonUnsafe({ status: "live" }, { headers: noStore })),
    HttpRouter.add("GET", healthPaths.ready, ready)
  )
}))
