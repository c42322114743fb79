// The floor under any product pipeline on HttpApi: the trivial endpoint of `trivial-httpapi-server.ts` plus the least a
// product front door does, in the framework's own two places. BENCH_FLOOR picks them: `envelope` (a global router
// middleware that gives each answer a fresh request id), `gate` (an HttpApiMiddleware that reads the bearer token,
// finds its principal in a Map and provides it to the handler), `both`. No digest, limit, log or view: whatever this
// costs over the trivial endpoint, every front door built on these two seams costs at least. `product` is `both` doing
// the v1 read's per-request work by hand, in plain synchronous code: the key's HMAC digest over a `KeyObject`, a
// fixed-window count per key, the RateLimit and nosniff headers, one access-log line gathered for a 50 ms write and one
// request-log record held for 1 s: what a hand-written pipeline on HttpApi would cost, with none of Effect's services
// (Cache, RateLimiter, Redacted, logger) per request.
import { serverRequestId } from "@atrium/domain"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware } from "effect/http-api"
import { createHmac, createSecretKey, randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { Workspace, workspace } from "./workspace-body.ts"
import type { unhandled } from "effect/Types"

const floor = process.env.BENCH_FLOOR ?? "both"
const product = floor === "product"
const withEnvelope = floor === "envelope" || floor === "both" || product
const withGate = floor === "gate" || floor === "both" || product

class Principal extends Context.Service<Principal, { readonly workspaceId: string }>()("bench/Principal") {}

class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {}, { httpApiStatus: 401 }) {}

class Gate extends HttpApiMiddleware.Service<Gate, { provides: Principal }>()("bench/Gate", { error: Unauthorized }) {}

// The bench's own bearer token (any the client sends) stands for one principal, found by its text.
const principals = new Map<string, { readonly workspaceId: string }>()
const principalOf = (authorization: string | undefined) => {
  if (authorization === undefined) return undefined
  const found = principals.get(authorization)
  if (found !== undefined) return found
  const made = { workspaceId: workspace.id }
  principals.set(authorization, made)
  return made
}

const endpoint = HttpApiEndpoint.get("workspace", "/", { success: Workspace })
class Plain extends HttpApiGroup.make("floor").add(endpoint) {}
class Gated extends HttpApiGroup.make("floor").add(endpoint).middleware(Gate) {}
class PlainApi extends HttpApi.make("floor").add(Plain) {}
class GatedApi extends HttpApi.make("floor").add(Gated) {}

// ——— `product`: the v1 read's work, by hand ———
const pepper = createSecretKey(Buffer.from("bench pepper, 32 bytes or more.."))
const byDigest = new Map<string, { readonly workspaceId: string; readonly keyId: string }>()
const windows = new Map<string, { start: number; count: number }>()
const limit = 100_000_000
const windowMillis = 60_000
let lines: Array<string> = []
let records: Array<object> = []
setInterval(() => {
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`)
  lines = []
}, 50).unref()
setInterval(() => {
  records = []
}, 1000).unref()

const productPrincipal = (authorization: string | undefined) => {
  if (authorization === undefined || !authorization.startsWith("Bearer ")) return undefined
  const digest = createHmac("sha256", pepper).update(authorization.slice(7), "utf8").digest("hex")
  let found = byDigest.get(digest)
  if (found === undefined) {
    found = { workspaceId: workspace.id, keyId: `key_${digest.slice(0, 12)}` }
    byDigest.set(digest, found)
  }
  return found
}

// Counts the request; the headers to answer with, or undefined over the limit.
const counted = (key: string, now: number): Record<string, string> | undefined => {
  let window = windows.get(key)
  if (window === undefined || now - window.start >= windowMillis) {
    window = { start: now, count: 0 }
    windows.set(key, window)
  }
  window.count++
  if (window.count > limit) return undefined
  const reset = Math.ceil((window.start + windowMillis - now) / 1000)
  return { "ratelimit-policy": `${limit};w=60`, "ratelimit": `limit=${limit}, remaining=${limit - window.count}, reset=${reset}` }
}

interface Facts {
  principal: string | undefined
  workspace: string | undefined
  headers: Record<string, string>
}
class CurrentFacts extends Context.Service<CurrentFacts, Facts>()("bench/CurrentFacts") {}

const GateLive = Layer.succeed(Gate, Gate.of((handler) =>
  Effect.withFiber<HttpServerResponse.HttpServerResponse, Unauthorized | unhandled>((fiber) => {
    const authorization = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).headers.authorization
    if (!product) {
      const principal = principalOf(authorization)
      return principal === undefined ? Effect.fail(new Unauthorized()) : Effect.provideService(handler, Principal, principal)
    }
    const principal = productPrincipal(authorization)
    if (principal === undefined) return Effect.fail(new Unauthorized())
    const facts = Context.getUnsafe(fiber.context, CurrentFacts)
    facts.principal = principal.keyId
    facts.workspace = principal.workspaceId
    const headers = counted(principal.keyId, Date.now())
    // Over the limit (never, at the bench's limit): refused with the one error this stand-in declares.
    if (headers === undefined) return Effect.fail(new Unauthorized())
    Object.assign(facts.headers, headers)
    return Effect.provideService(handler, Principal, principal)
  })))

const plainEnvelope = (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) =>
  Effect.map(httpEffect, (response) => HttpServerResponse.setHeader(response, "x-request-id", randomUUID()))

const productEnvelope = (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled>) =>
  Effect.suspend(() => {
    const started = performance.now()
    const requestId = serverRequestId(Date.now(), randomUUID())
    const facts: Facts = { principal: undefined, workspace: undefined, headers: { "x-request-id": requestId, "x-content-type-options": "nosniff" } }
    return Effect.map(Effect.provideService(httpEffect, CurrentFacts, facts), (response) => {
      const entry = {
        method: "GET",
        route: "/",
        status: response.status,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        requestId,
        principalId: facts.principal ?? null,
        workspaceId: facts.workspace ?? null
      }
      lines.push(`{"message":"request","level":"INFO","timestamp":"${new Date().toISOString()}","annotations":${JSON.stringify(entry)}}`)
      records.push(entry)
      return HttpServerResponse.setHeaders(response, facts.headers)
    })
  })

const Envelope = HttpRouter.middleware(Effect.succeed(product ? productEnvelope : plainEnvelope), { global: true })

const api = withGate
  ? HttpApiBuilder.layer(GatedApi).pipe(
    Layer.provide(HttpApiBuilder.group(GatedApi, "floor", (handlers) =>
      handlers.handle("workspace", () => Effect.map(Effect.service(Principal), () => workspace)))),
    Layer.provide(GateLive)
  )
  : HttpApiBuilder.layer(PlainApi).pipe(
    Layer.provide(HttpApiBuilder.group(PlainApi, "floor", (handlers) => handlers.handle("workspace", () => Effect.succeed(workspace))))
  )

// The bench waits for this line, like the bare server's.
const announce = Layer.effectDiscard(Effect.gen(function*() {
  const address = (yield* HttpServer.HttpServer).address
  yield* Effect.sync(() => process.stdout.write(`listening ${"port" in address ? address.port : 0}\n`))
}))

const Server = Layer.mergeAll(
  HttpRouter.serve(withEnvelope ? Layer.merge(api, Envelope) : api, { disableLogger: true, disableListenLog: true }),
  announce
).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })))

Layer.launch(Server).pipe(NodeRuntime.runMain)
