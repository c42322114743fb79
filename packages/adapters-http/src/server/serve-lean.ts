import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { routerConfig } from "./http-app.ts"

// Effect's own services (loggers, tracer, the HTTP platform, file system): what a request reads from its fiber. Database
// clients, stores, the access-log sink and every service of the domain were taken by the routes when built.
const requestTime = (key: string) =>
  (key.startsWith("effect/") && !key.startsWith("effect/sql/")) ||
  (key.startsWith("~effect/") && !key.startsWith("~effect/persistence/"))

// Builds the server in that context. Typed as what it was built from: the server reads only Effect's own services.
const withoutAppServices = <A, E, R>(server: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.fromBuild((memoMap, scope) =>
    Effect.updateContext(
      Layer.buildWithMemoMap(server, memoMap, scope),
      (context: Context.Context<R>) => Context.makeUnsafe<R>(new Map([...context.mapUnsafe].filter(([key]) => requestTime(key))))
    ))

/**
 * `HttpRouter.serve` for an app whose routes hold their own services. Every request's fiber starts from the context
 * the server was built in, and each service a request adds (its request id, its principal) or the router merges
 * copies that context: with the app's ~70 services in it, those copies were the largest cost of a cached read.
 */
export const serveLean = <A, E, R>(app: Layer.Layer<A, E, R>) =>
  Layer.unwrap(Effect.map(
    HttpRouter.toHttpEffect(app).pipe(Effect.provideService(HttpRouter.RouterConfig, routerConfig)),
    (handler) => withoutAppServices(HttpServer.serve(handler))
  )).pipe(HttpServer.withLogAddress)
