import { CurrentRequestId, serverRequestId } from "@atrium/domain"
import { ByteSize, Cause, Context, Effect, Option, Result } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { randomUUID } from "node:crypto"
import { type AccessLogEntry, AccessLogSink } from "./access-log.ts"
import { problemResponse } from "./problem-response.ts"
import { CurrentRequestFacts, type RequestFacts } from "./request-facts.ts"
import type { RouteTable } from "./route-table.ts"

/** Options of the router-level envelope. */
export interface EnvelopeOptions {
  /** Largest accepted request body, in bytes (1 MiB by default). */
  readonly maxBodyBytes?: number | undefined
  /** Seconds a client should wait after a 503. */
  readonly retryAfterSeconds?: number | undefined
  /** One JSON access-log line per request (on by default). */
  readonly accessLog?: boolean | undefined
}

const defaultMaxBodyBytes = 1024 * 1024

// A client's id is echoed only when it is short and plain, so it cannot inject into logs or headers.
const acceptableRequestId = /^[A-Za-z0-9._-]{1,128}$/

/**
 * The id of a request: the client's `x-request-id` when acceptable, else a fresh `req_…` that begins with the time (the
 * request log finds it by that). Node's `randomUUID` draws from entropy it fetched ahead (one fetch per 128 ids), not
 * one fill of 16 random bytes per request: 11 % of the v1 read.
 */
const requestIdFor = (incoming: string | undefined): string =>
  incoming !== undefined && acceptableRequestId.test(incoming)
    ? incoming
    : serverRequestId(Date.now(), randomUUID())

const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const isProblem = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" && response.body.contentType === ProblemDetails.contentType

/**
 * The outermost middleware: request ids (the contract's problems carry theirs from the fiber; nothing is re-parsed),
 * body limits, 404/405/413 problems, defects as bare 500s, and a problem for any other failure that is not one.
 */
export const makeEnvelope = (routes: RouteTable, options?: EnvelopeOptions) => {
  const maxBodyBytes = options?.maxBodyBytes ?? defaultMaxBodyBytes
  const maxBodySize = ByteSize.bytes(maxBodyBytes)
  const retryAfter = String(options?.retryAfterSeconds ?? 1)

  const tooLarge = (requestId: string) =>
    problemResponse(413, requestId, {
      code: "payload_too_large",
      detail: `The request body exceeds ${maxBodyBytes} bytes`,
      // The rest of an oversized body is not read: do not reuse the connection.
      headers: { connection: "close" }
    })

  // Turns what escaped the app (unknown route, unreadable body, defect) into a response.
  const recover = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, requestId: string) => {
    const failure = Result.getOrUndefined(Cause.findError(cause))
    const problem = failure ?? Result.getOrUndefined(Cause.findDefect(cause))
    if (HttpServerError.isHttpServerError(problem)) {
      const reason = problem.reason
      if (reason._tag === "RouteNotFound") {
        const allowed = routes.allowed(pathOf(request.url))
        // The method is served here, yet no route took the request: a path parameter too long for the router.
        if (allowed.includes(request.method)) {
          return Effect.succeed(problemResponse(404, requestId, { detail: "No such resource with this id" }))
        }
        if (allowed.length > 0) {
          return Effect.succeed(problemResponse(405, requestId, {
            detail: `${request.method} is not allowed here`,
            headers: { allow: allowed.join(", ") }
          }))
        }
        return Effect.succeed(problemResponse(404, requestId, { code: "route_not_found", detail: "No route matches this path" }))
      }
      if (reason._tag === "RequestParseError") {
        return Effect.succeed(
          reason.reason === "BodyTooLarge"
            ? tooLarge(requestId)
            : problemResponse(400, requestId, { detail: "The request body could not be read" })
        )
      }
    }
    // The cause goes to the logs; the client learns nothing about it.
    return Effect.logError("Request failed with an unexpected cause", cause).pipe(
      Effect.annotateLogs({ requestId, method: request.method, path: pathOf(request.url) }),
      Effect.as(problemResponse(500, requestId))
    )
  }

  // Every response leaves with the headers noted for it (its request id first); a failure that is not already a
  // problem becomes one.
  const finish = (response: HttpServerResponse.HttpServerResponse, requestId: string, facts: RequestFacts) => {
    const noted = facts.headers
    if (response.status < 400) return HttpServerResponse.setHeaders(response, noted)
    if (!isProblem(response)) return HttpServerResponse.setHeaders(problemResponse(response.status, requestId), noted)
    const out = HttpServerResponse.setHeaders(response, noted)
    return response.status === 503 && out.headers["retry-after"] === undefined
      ? HttpServerResponse.setHeader(out, "retry-after", retryAfter)
      : out
  }

  const accessLog = options?.accessLog ?? true
  // Method, route template, status, duration, request id and principal id: never a credential, a query or a body.
  const entryOf = (
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse,
    requestId: string,
    facts: RequestFacts,
    started: number
  ): AccessLogEntry => ({
    method: request.method,
    route: facts.route ?? null,
    status: response.status,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    requestId,
    principalId: facts.principal ?? null,
    workspaceId: facts.workspace ?? null,
    keyId: facts.key ?? null
  })

  // The host's sink is read once, when the router is built.
  return HttpRouter.middleware(Effect.map(Effect.service(AccessLogSink), (sink) => (httpEffect) =>
    Effect.withFiber((fiber) => {
      // A monotonic clock for the duration alone.
      const started = performance.now()
      const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
      const requestId = requestIdFor(request.headers["x-request-id"])
      // nosniff on every answer: a JSON or problem body is never run as a script or rendered as HTML by a browser.
      const facts: RequestFacts = {
        route: undefined,
        principal: undefined,
        workspace: undefined,
        key: undefined,
        headers: { "x-request-id": requestId, "x-content-type-options": "nosniff" }
      }
      // The response as it leaves, logged: by the host's sink in the same step, else through Effect's logger.
      const done = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
        const out = finish(response, requestId, facts)
        if (!accessLog) return Effect.succeed(out)
        const entry = entryOf(request, out, requestId, facts, started)
        if (sink === undefined) return Effect.logInfo("request").pipe(Effect.annotateLogs({ ...entry }), Effect.as(out))
        sink(entry)
        return Effect.succeed(out)
      }
      const length = request.headers["content-length"]
      if (length !== undefined && Number(length) > maxBodyBytes) return done(tooLarge(requestId))
      const served = Effect.updateContext(httpEffect, (context: Context.Context<never>) =>
        // Overlays, one step: merging a context would copy the whole request context.
        Context.add(
          Context.add(Context.add(context, CurrentRequestId, Option.some(requestId)), CurrentRequestFacts, facts),
          // Enforced while reading too, for bodies without a Content-Length.
          HttpIncomingMessage.MaxBodySize,
          maxBodySize
        ))
      return Effect.matchCauseEffect(served, {
        onFailure: (cause) => Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.flatMap(recover(cause, request, requestId), done),
        onSuccess: done
      })
    })), { global: true })
}
