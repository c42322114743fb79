import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import * as http from "node:http"
import * as https from "node:https"
import type { Socket } from "node:net"
import { isIP } from "node:net"
import { createHmac, createSecretKey } from "node:crypto"
import type { AttemptErrorKind, DestinationCheck, TransportRequest, TransportResult, WebhookSignerShape } from "@atrium/domain"
import { WebhookSigner, WebhookTransport } from "@atrium/domain"
import { Duration, Effect, Layer, Result } from "effect"
import { type AllowList, makeAllowList } from "./ssrf-guard.ts"
import { classifyNetworkError } from "./attempt-error.ts"
import { type Destination, type DestinationRefused, resolveDestination, type Resolver, systemResolver } from "./destination.ts"
import { makePinnedConnections, pinnedLookup } from "./pinned-connections.ts"
import { parseRetryAfter } from "./retry-after.ts"

/** Most response-body bytes kept for the attempt record; the rest is never read. */
const maxResponseBodyBytes = 4096

/** Response headers kept for the attempt record (lower-case). */
const notedResponseHeaders: ReadonlyArray<string> = ["content-type", "retry-after", "location", "x-request-id", "server"]

// Header values are the receiver's text: bound them so one answer cannot bloat the attempt record.
const maxHeaderValueLength = 512

// Hop-by-hop and framing headers are the transport's business; a caller's value could desynchronise the request.
const transportOwnedHeaders = new Set(["host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer"])

/** Options of the Node.js transport. */
export interface Options {
  /** CIDRs the SSRF guard lets through (and the only ones plain `http:` may reach). */
  readonly allowNetworks: ReadonlyArray<string>
  /** Replaces the operating system's resolver (tests). */
  readonly resolver?: Resolver | undefined
  /** How long a checked connection may serve further attempts to the same addresses (0: a new one per attempt). */
  readonly reuseWindowMillis?: number | undefined
}

/** About one worker pass: attempts close in time share a connection; later ones connect afresh. */
const defaultReuseWindowMillis = 1_000

// Node fires an out-of-range timer after 1 ms: clamp (an infinite timeout becomes ~24.8 days, not 1 ms).
const timerMillis = (duration: Duration.Duration): number => Math.min(Math.max(1, Duration.toMillis(duration)), 2_147_483_647)

// Wall-clock time of real I/O: the Effect clock may be a TestClock that does not move on its own.
const now = Effect.sync(() => performance.now())

const pickHeaders = (headers: IncomingHttpHeaders): Record<string, string> => {
  const picked: Record<string, string> = {}
  for (const name of notedResponseHeaders) {
    const value = headers[name]
    const text = Array.isArray(value) ? value.join(", ") : value
    if (text !== undefined) picked[name] = text.slice(0, maxHeaderValueLength)
  }
  return picked
}

const requestHeaders = (request: TransportRequest, destination: Destination): Record<string, string> => {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "Atrium-Webhooks/1" }
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase()
    if (!transportOwnedHeaders.has(lower)) headers[lower] = value
  }
  headers["host"] = destination.url.host
  headers["content-length"] = String(Buffer.byteLength(request.body))
  return headers
}

// The first 4 KiB of the answer as text; NUL (which no database text holds) as U+FFFD. Most answers have no body.
const bodyText = (chunks: ReadonlyArray<Buffer>): string =>
  chunks.length === 0 ? "" : Buffer.concat(chunks).subarray(0, maxResponseBodyBytes).toString("utf8").replaceAll("\u0000", "\uFFFD")

const failure = (errorKind: AttemptErrorKind, durationMillis: number, remoteAddress: string | null): TransportResult => ({
  ok: false,
  errorKind,
  statusCode: null,
  responseHeaders: {},
  responseBody: "",
  retryAfterSeconds: null,
  durationMillis,
  remoteAddress
})

interface ExchangeTimes {
  readonly started: number
  readonly connectMillis: number
  readonly totalMillis: number
}

/** One POST to the checked addresses (over a connection of this pass to them, or a new one); never fails. */
const exchange = (request: TransportRequest, destination: Destination, times: ExchangeTimes, agent: http.Agent) =>
  Effect.callback<TransportResult>((resume) => {
    const client = destination.secure ? https : http
    let done = false
    let remoteAddress: string | null = null
    let response: IncomingMessage | null = null
    const chunks: Array<Buffer> = []
    let bodyBytes = 0
    const elapsed = () => Math.round(performance.now() - times.started)

    const req = client.request({
      method: "POST",
      hostname: destination.hostname,
      port: destination.port,
      path: `${destination.url.pathname}${destination.url.search}`,
      headers: requestHeaders(request, destination),
      lookup: pinnedLookup(destination.addresses),
      // Pooled per checked destination and pass only: no socket outlives the window of the check that justified it.
      agent,
      // SNI carries the host name, never an IP literal (which TLS forbids there).
      ...(destination.secure && isIP(destination.hostname) === 0 ? { servername: destination.hostname } : {})
    })

    // A connection whose answer was read to the end goes back to the pool; any other is torn down.
    const finish = (result: TransportResult, reusable = false) => {
      if (done) return
      done = true
      clearTimeout(connectTimer)
      clearTimeout(totalTimer)
      if (!reusable) req.destroy()
      resume(Effect.succeed(result))
    }

    // Once the status line arrived, the outcome is decided by it; the body is best effort.
    const finishWithResponse = (answer: IncomingMessage, reusable = false) => {
      const statusCode = answer.statusCode ?? 0
      const ok = statusCode >= 200 && statusCode < 300
      const responseHeaders = pickHeaders(answer.headers)
      finish({
        ok,
        errorKind: ok ? null : "non_2xx",
        statusCode,
        responseHeaders,
        responseBody: bodyText(chunks),
        retryAfterSeconds: statusCode === 429 || statusCode === 503
          ? parseRetryAfter(responseHeaders["retry-after"], Date.now())
          : null,
        durationMillis: elapsed(),
        remoteAddress
      }, reusable)
    }

    const finishWithError = (kind: AttemptErrorKind) =>
      response === null ? finish(failure(kind, elapsed(), remoteAddress)) : finishWithResponse(response)

    const connectTimer = setTimeout(() => finishWithError("timeout"), times.connectMillis)
    const totalTimer = setTimeout(() => finishWithError("timeout"), times.totalMillis)

    req.on("socket", (socket: Socket) => {
      // A pooled socket is already connected (to a checked address): nothing to wait for.
      if (!socket.connecting && socket.remoteAddress !== undefined) {
        clearTimeout(connectTimer)
        remoteAddress = socket.remoteAddress
        return
      }
      socket.on("connectionAttempt", (address: string) => {
        remoteAddress = address
      })
      socket.once("connect", () => {
        clearTimeout(connectTimer)
        remoteAddress = socket.remoteAddress ?? remoteAddress
      })
    })
    req.on("error", (error) => finishWithError(classifyNetworkError(error)))
    req.on("response", (answer) => {
      response = answer
      answer.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        bodyBytes += chunk.length
        if (bodyBytes >= maxResponseBodyBytes) finishWithResponse(answer)
      })
      answer.on("end", () => finishWithResponse(answer, true))
      answer.on("error", () => finishWithResponse(answer))
      answer.on("close", () => finishWithResponse(answer))
    })
    req.end(request.body)

    // Interruption (shutdown, an outer timeout) tears the connection down at once.
    return Effect.sync(() => {
      done = true
      clearTimeout(connectTimer)
      clearTimeout(totalTimer)
      req.destroy()
    })
  })

// The resolved address of a refused destination is logged here and never reaches an attempt record or a response.
const logRefusal = (refused: DestinationRefused) =>
  refused.kind === "blocked"
    ? Effect.logWarning("webhook destination refused by the SSRF guard").pipe(
      Effect.annotateLogs({ reason: refused.reason, detail: refused.detail ?? refused.reason })
    )
    : Effect.void

/** Builds the transport: validates the allow-list once, then checks every destination before each attempt. */
export const make = Effect.fn("WebhookTransportNode.make")(function*(options: Options) {
  const allowList: AllowList = yield* makeAllowList(options.allowNetworks)
  const resolver = options.resolver ?? systemResolver
  const connections = yield* Effect.acquireRelease(
    Effect.sync(() => makePinnedConnections(options.reuseWindowMillis ?? defaultReuseWindowMillis)),
    (pool) => Effect.sync(pool.close)
  )

  // Untraced like the attempt that calls it: a span per attempt is the worker's hot path, not a diagnosis.
  const send = Effect.fnUntraced(function*(request: TransportRequest) {
    const started = yield* now
    const totalMillis = timerMillis(request.timeout)
    const connectMillis = Math.min(timerMillis(request.connectTimeout), totalMillis)
    // The guard runs again at send time: DNS answers may have changed since the subscription was saved.
    const checked = yield* Effect.result(resolveDestination(request.url, { allowList, resolver, timeoutMillis: connectMillis }))
    if (Result.isFailure(checked)) {
      yield* logRefusal(checked.failure)
      const durationMillis = Math.round((yield* now) - started)
      return failure(checked.failure.kind, durationMillis, null)
    }
    const resolvedAt = yield* now
    const remaining = Math.max(1, totalMillis - (resolvedAt - started))
    return yield* exchange(request, checked.success, {
      started,
      connectMillis: Math.min(connectMillis, remaining),
      totalMillis: remaining
    }, connections.agentFor(checked.success))
  })

  const checkDestination = Effect.fn("WebhookTransportNode.checkDestination")(function*(url: string) {
    const checked = yield* Effect.result(resolveDestination(url, { allowList, resolver, timeoutMillis: 5_000 }))
    const verdict: DestinationCheck = Result.isSuccess(checked)
      ? { _tag: "Allowed", addresses: checked.success.addresses.map((entry) => entry.address) }
      : { _tag: "Refused", reason: checked.failure.reason, detail: checked.failure.detail }
    return verdict
  })

  return WebhookTransport.of({ send, checkDestination })
})

/** `node:crypto` HMAC-SHA256 for the `WebhookSigner` port: signs synchronously, several times cheaper per attempt than Web Crypto's `subtle.sign`. */
export const signer: WebhookSignerShape = {
  importKey: (bytes) =>
    Effect.sync(() => {
      const key = createSecretKey(bytes)
      return { sign: (content: string) => Effect.sync(() => createHmac("sha256", key).update(content).digest("base64")) }
    })
}

/** The `node:http(s)` webhook transport with an SSRF guard; fails to build on an invalid allow-network. */
// The Node transport brings the Node signer, so every process that sends webhooks signs with `node:crypto`.
export const layerWith = (options: Options) => Layer.merge(Layer.effect(WebhookTransport, make(options)), Layer.succeed(WebhookSigner, signer))

