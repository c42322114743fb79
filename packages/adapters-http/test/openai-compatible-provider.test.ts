import { type AiCompletion, type AiCompletionRequest, AiProvider, Feature, ModelId, ModelSpec, ProviderError } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { type Duration, Effect, Layer, Logger, Option, Redacted, Result, Tracer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { AiProviderRouter, OpenAiCompatibleProvider, routeProviders } from "../src/outbound/index.ts"

// Shaped like a real key, and unique enough that finding it anywhere is certainly a leak.
const secret = "sk-test-Zq8vN3xYtR5uW1oP7sK2dF9gH4jL6mB0"
const apiKey = Redacted.make(secret)

const spec = (provider: ModelSpec["provider"]) =>
  new ModelSpec({
    model: ModelId.make(provider === "local" ? "atrium-local-1" : "gpt-4o-mini"),
    provider,
    requiredFeature: Feature.make("ai.standard"),
    inputPriceMicrosPerMTok: 150_000,
    outputPriceMicrosPerMTok: 600_000,
    maxInputTokens: 128_000,
    maxOutputTokens: 16_384,
    description: "test"
  })

const promptRequest: AiCompletionRequest = { spec: spec("openai-compatible"), input: { prompt: "Say hi" }, maxOutputTokens: 64 }

/** One request as the fake provider saw it. */
interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

type Responder = (request: Received, response: ServerResponse) => void

const json = (status: number, body: unknown): Responder => (_request, response) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

const completion = (content: string, promptTokens: number, completionTokens: number) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens }
})

/** A real loopback server answering like an OpenAI-compatible provider; closed (connections too) with the test's scope. */
const fakeProvider = (respond: Responder) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly server: ReturnType<typeof createServer>; readonly received: Array<Received> }>((resolve) => {
        const received: Array<Received> = []
        const server = createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const seen: Received = {
              method: request.method ?? "",
              path: request.url ?? "",
              headers: request.headers,
              body: Buffer.concat(chunks).toString("utf8")
            }
            received.push(seen)
            respond(seen, response)
          })
        })
        server.listen(0, "127.0.0.1", () => resolve({ server, received }))
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  ).pipe(Effect.map(({ server, received }) => {
    const address: AddressInfo | string | null = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    return { baseUrl: `http://127.0.0.1:${port}/v1`, received }
  }))

/** Runs one completion on the provider aimed at `baseUrl`. */
const complete = (baseUrl: string, request: AiCompletionRequest = promptRequest, timeout: Duration.Input = "5 seconds") =>
  AiProvider.pipe(
    Effect.flatMap((provider) => provider.complete(request)),
    Effect.provide(OpenAiCompatibleProvider.layerWith({ baseUrl, apiKey, timeout }).pipe(Layer.provide(FetchHttpClient.layer)))
  )

const failureOf = (baseUrl: string, timeout?: Duration.Input) => complete(baseUrl, promptRequest, timeout).pipe(Effect.flip)

const classified = (error: ProviderError) => ({ code: error.code, retryable: error.retryable })

describe("OpenAiCompatibleProvider", () => {
  it.live("posts the model, the messages and max_tokens as JSON to {baseUrl}/chat/completions, with the key only in Authorization", () =>
    Effect.gen(function*() {
      const { baseUrl, received } = yield* fakeProvider(json(200, completion("Hi!", 9, 2)))
      yield* complete(baseUrl)
      const chat: AiCompletionRequest = {
        spec: spec("openai-compatible"),
        input: { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }] },
        maxOutputTokens: 16_384
      }
      yield* complete(baseUrl, chat)
      assert.strictEqual(received.length, 2)
      const [first, second] = received
      if (first === undefined || second === undefined) return assert.fail("no request")
      assert.strictEqual(first.method, "POST")
      assert.strictEqual(first.path, "/v1/chat/completions")
      assert.match(first.headers["content-type"] ?? "", /^application\/json/)
      assert.strictEqual(first.headers.authorization, `Bearer ${secret}`)
      assert.deepStrictEqual(JSON.parse(first.body), { model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hi" }], max_tokens: 64 })
      assert.deepStrictEqual(JSON.parse(second.body), {
        model: "gpt-4o-mini",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }],
        max_tokens: 16_384
      })
      // The key travels in the Authorization header and nowhere else: not in the path, another header, or the body.
      for (const request of received) {
        const { authorization: _, ...otherHeaders } = request.headers
        assert.notInclude(JSON.stringify([request.path, otherHeaders, request.body]), secret)
      }
    }))

  it.live("a trailing slash on the base URL makes no double slash", () =>
    Effect.gen(function*() {
      const { baseUrl, received } = yield* fakeProvider(json(200, completion("ok", 1, 1)))
      yield* complete(`${baseUrl}/`)
      assert.deepStrictEqual(received.map((r) => r.path), ["/v1/chat/completions"])
    }))

  it.live("a completion yields the first choice's text and the provider's token counts", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* fakeProvider(json(200, completion("Hi there, friend.", 12, 5)))
      assert.deepStrictEqual(yield* complete(baseUrl), { output: "Hi there, friend.", inputTokens: 12, outputTokens: 5 })
    }))

  it.live("each HTTP failure is classified, and only the transient ones are retryable", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [number, { readonly code: string; readonly retryable: boolean }]> = [
        [429, { code: "provider_rate_limited", retryable: true }],
        [401, { code: "provider_auth", retryable: false }],
        [403, { code: "provider_auth", retryable: false }],
        [400, { code: "provider_rejected", retryable: false }],
        [404, { code: "provider_rejected", retryable: false }],
        [422, { code: "provider_rejected", retryable: false }],
        [500, { code: "provider_unavailable", retryable: true }],
        [502, { code: "provider_unavailable", retryable: true }],
        [503, { code: "provider_unavailable", retryable: true }]
      ]
      for (const [status, expected] of cases) {
        // The body echoes the key, as real providers do on 401 ("Incorrect API key provided: sk-…"): it must not surface.
        const { baseUrl } = yield* fakeProvider(json(status, { error: { message: `Incorrect API key provided: ${secret}` } }))
        const error = yield* failureOf(baseUrl)
        assert.instanceOf(error, ProviderError)
        assert.deepStrictEqual(classified(error), expected, `status ${status}`)
        assert.notInclude(error.message, secret)
      }
    }))

  it.live("a refused connection is provider_unavailable, retryable", () =>
    Effect.gen(function*() {
      // Bind a port, then close the server: nothing listens there any more.
      const { baseUrl } = yield* Effect.scoped(fakeProvider(json(200, completion("never", 1, 1))))
      assert.deepStrictEqual(classified(yield* failureOf(baseUrl)), { code: "provider_unavailable", retryable: true })
    }))

  it.live("a malformed answer is provider_error: not JSON, no choices, no usage, no text", () =>
    Effect.gen(function*() {
      const notJson: Responder = (_request, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end("<html>gateway</html>")
      }
      const answers: ReadonlyArray<Responder> = [
        notJson,
        json(200, { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
        json(200, { choices: [{ message: { content: "hi" } }] }),
        json(200, { choices: [{ message: { content: null } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
        json(200, { choices: [{ message: { content: "hi" } }], usage: { prompt_tokens: -1, completion_tokens: 1 } })
      ]
      for (const answer of answers) {
        const { baseUrl } = yield* fakeProvider(answer)
        assert.deepStrictEqual(classified(yield* failureOf(baseUrl)), { code: "provider_error", retryable: false })
      }
    }))

  it.live("a provider that never answers hits the timeout: provider_timeout, retryable", () =>
    Effect.gen(function*() {
      const { baseUrl, received } = yield* fakeProvider(() => undefined)
      const started = Date.now()
      const error = yield* failureOf(baseUrl, "300 millis")
      assert.deepStrictEqual(classified(error), { code: "provider_timeout", retryable: true })
      assert.isBelow(Date.now() - started, 3000)
      assert.strictEqual(received.length, 1)
    }))

  it.live("the key appears in no result, error, log line or span, even with request headers traced", () => {
    const lines: Array<string> = []
    const capture = Logger.formatJson.pipe(Logger.map((line) => {
      lines.push(line)
    }))
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    return Effect.gen(function*() {
      const answers: ReadonlyArray<Responder> = [
        json(200, completion("hello", 3, 4)),
        json(401, { error: { message: `Incorrect API key provided: ${secret}` } }),
        json(500, { error: `upstream saw Authorization: Bearer ${secret}` }),
        json(200, { bogus: secret }),
        () => undefined
      ]
      const outcomes: Array<Result.Result<AiCompletion, ProviderError>> = []
      for (const answer of answers) {
        const { baseUrl } = yield* fakeProvider(answer)
        outcomes.push(yield* complete(baseUrl, promptRequest, "300 millis").pipe(Effect.result))
      }
      const { baseUrl: closed } = yield* Effect.scoped(fakeProvider(json(200, {})))
      outcomes.push(yield* complete(closed).pipe(Effect.result))

      assert.deepStrictEqual(outcomes.map((o) => Result.isSuccess(o) ? "ok" : o.failure.code), [
        "ok",
        "provider_auth",
        "provider_unavailable",
        "provider_error",
        "provider_timeout",
        "provider_unavailable"
      ])
      for (const outcome of outcomes) {
        assert.notInclude(JSON.stringify(outcome), secret)
        assert.notInclude(String(outcome), secret)
        if (Result.isFailure(outcome)) {
          assert.notInclude(outcome.failure.message, secret)
          assert.notInclude(JSON.stringify(outcome.failure.toJSON()), secret)
          assert.notInclude(outcome.failure.stack ?? "", secret)
        }
      }
      // Each failure was logged (so the scan reads something), and no line holds the key.
      assert.strictEqual(lines.length, 5)
      for (const line of lines) assert.notInclude(line, secret)
      assert.isTrue(spans.some((span) => span.name === "OpenAiCompatibleProvider.complete"))
      const traced = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: [...span.attributes], events: span.events })))
      // The header was traced (the filter lets every header through), as a redaction, never the value.
      assert.include(traced, "http.request.header.authorization")
      assert.notInclude(traced, secret)
    }).pipe(
      Effect.scoped,
      Effect.withTracer(tracer),
      Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
      Effect.provide(Logger.layer([capture]))
    )
  })
})

describe("routeProviders", () => {
  const local = AiProvider.of({ complete: () => Effect.succeed({ output: "local", inputTokens: 1, outputTokens: 1 }) })
  const hostedProvider = AiProvider.of({ complete: () => Effect.succeed({ output: "hosted", inputTokens: 2, outputTokens: 2 }) })

  it.effect("dispatches on the model's provider kind", () =>
    Effect.gen(function*() {
      const router = routeProviders({ local, "openai-compatible": hostedProvider })
      assert.strictEqual((yield* router.complete({ ...promptRequest, spec: spec("local") })).output, "local")
      assert.strictEqual((yield* router.complete(promptRequest)).output, "hosted")
    }))

  it.effect("a kind with no configured provider is provider_unavailable, not retryable", () =>
    Effect.gen(function*() {
      const router = routeProviders({ local })
      const error = yield* router.complete(promptRequest).pipe(Effect.flip)
      assert.deepStrictEqual(classified(error), { code: "provider_unavailable", retryable: false })
      assert.strictEqual((yield* router.complete({ ...promptRequest, spec: spec("local") })).output, "local")
    }))

  it.effect("AiProviderRouter.layer routes to the configured layers", () =>
    Effect.gen(function*() {
      const withHosted = AiProviderRouter.layerWith({
        local: Layer.succeed(AiProvider, local),
        openaiCompatible: Option.some(Layer.succeed(AiProvider, hostedProvider))
      })
      const routed = yield* AiProvider.pipe(Effect.provide(withHosted))
      assert.strictEqual((yield* routed.complete(promptRequest)).output, "hosted")
      const localOnly = yield* AiProvider.pipe(Effect.provide(AiProviderRouter.layerWith({ local: Layer.succeed(AiProvider, local), openaiCompatible: Option.none() })))
      assert.strictEqual((yield* localOnly.complete(promptRequest).pipe(Effect.flip)).code, "provider_unavailable")
    }))
})
