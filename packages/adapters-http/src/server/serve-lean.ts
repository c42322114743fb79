import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { routerConfig } from "./http-app.ts"

// Effect's own services (loggers, tracer, the HTTP platform, file system, the serving scope): what a request reads from
// its fiber. Database clients, stores, the access-log sink and every service of the domain were taken by the routes
// when built.
const requestTime = (key: string) =>
  (key.startsWith("effect/") && !key.startsWith("effect/sql/")) ||
  (key.startsWith("~effect/") && !key.startsWith("~effect/persistence/"))

// Runs `serve` in one flat map of those services (its scope included), typed as what it was built from: each request's
// context starts from that map with no overlays of its own, so the overlays a request adds reach Effect's rebase depth
// (8) later.
const withoutAppServices = <A, E, R>(serve: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.updateContext(serve, (context: Context.Context<R>) =>
    Context.makeUnsafe<R>(new Map([...context.mapUnsafe].filter(([key]) => requestTime(key)))))

/**
 * `HttpRouter.serve` for an app whose routes hold their own services. Every request's fiber starts from the context
 * `serve` runs in, and each service a request adds (its request id, its principal) or the router merges copies that
 * context: with the app's ~70 services in it, those copies were the largest cost of a cached read.
 */
export const serveLean = <A, E, R>(app: Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.map(
    HttpRouter.toHttpEffect(app).pipe(Effect.provideService(HttpRouter.RouterConfig, routerConfig)),
    (handler) => Layer.effectDiscard(withoutAppServices(HttpServer.serveEffect(handler)))
  )).pipe(HttpServer.withLogAddress)
