import { ApiKeys, type ApiKeyScope, type WorkspaceId, Workspaces } from "@atrium/domain"
import { Domain, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { NodeHttpServer } from "@effect/platform-node"
import { type DateTime, Effect, Layer, Option, Redacted } from "effect"
import { HttpBody, HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import { HttpAppLayerMemory, type HttpAppOptions, routerConfig } from "../src/index.ts"

/** Options most tests run with: a limit far above what they send, and no access log in the test output. */
export const defaultOptions: HttpAppOptions = { rateLimit: { limit: 1000, window: "1 minute" }, accessLog: false }

/** Serves any router layer over loopback with the in-memory domain; the test gets the domain and a client aimed at the server. */
export const serveOverMemory = <A, E, R>(routes: Layer.Layer<A, E, R>, domain: typeof Domain.layerMemory = Domain.layerMemory) =>
  HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true, routerConfig }).pipe(
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(domain)
  )

/** The real HTTP app over loopback with the whole domain in memory (stores unconfigured unless `domain` says otherwise). */
export const AppUnderTest = (options: HttpAppOptions = defaultOptions, domain: typeof Domain.layerMemory = Domain.layerMemory) =>
  serveOverMemory(HttpAppLayerMemory(options), domain)

/** A workspace and an API key in it. */
export const seedKey = (options?: {
  readonly name?: string
  readonly scopes?: ReadonlyArray<ApiKeyScope>
  readonly expiresAt?: DateTime.Utc
}) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: options?.name ?? "Acme" })
    const created = yield* (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "test", scopes: options?.scopes, expiresAt: options?.expiresAt })
    return { workspace, apiKey: created.apiKey, key: Redacted.value(created.plaintext) }
  })

/** Another API key in an existing workspace. */
export const addKey = (workspaceId: WorkspaceId, scopes: ReadonlyArray<ApiKeyScope>) =>
  Effect.gen(function*() {
    const created = yield* (yield* ApiKeys).create(systemPrincipal(workspaceId), { name: scopes.join(" "), scopes })
    return Redacted.value(created.plaintext)
  })

/** What a test inspects of a response. */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
  readonly body: Record<string, unknown>
}

const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

// Non-JSON bodies (the docs page) parse to an empty object; tests read `text` for those.
const parse = (text: string): Record<string, unknown> => {
  const value = Option.getOrUndefined(parseJson(text))
  return typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : {}
}

/** Sends a request to the server under test. */
export const send = (
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS",
  path: string,
  options?: {
    readonly key?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly contentType?: string
  }
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path)
    if (options?.key !== undefined) request = HttpClientRequest.bearerToken(request, options.key)
    if (options?.headers !== undefined) request = HttpClientRequest.setHeaders(request, options.headers)
    if (options?.body !== undefined) {
      request = HttpClientRequest.setBody(request, HttpBody.text(options.body, options.contentType ?? "application/json"))
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    const reply: Reply = { status: response.status, headers: response.headers, text, body: parse(text) }
    return reply
  })

/** Sends `body` as JSON. */
export const sendJson = (
  method: "POST" | "PUT" | "PATCH",
  path: string,
  key: string,
  body: unknown,
  headers?: Record<string, string>
) => send(method, path, { key, body: JSON.stringify(body), ...(headers === undefined ? {} : { headers }) })
