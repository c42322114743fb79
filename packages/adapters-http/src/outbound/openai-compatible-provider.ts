import { type AiCompletion, type AiCompletionRequest, AiProvider, type ProviderError } from "@atrium/domain"
import { Duration, Effect, Layer, Option, type Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { chatCompletionBody, ChatCompletionResponse, toCompletion } from "./chat-completion.ts"
import { malformedResponse, providerTimedOut, statusFailure, transportFailure, unsendableRequest } from "./provider-failure.ts"

export { AiProviderRouter, type ProvidersByKind, routeProviders } from "./provider-router.ts"

/** Where an OpenAI-compatible endpoint is, the key it takes, and how long one call may last (default 60 seconds). */
export interface OpenAiCompatibleOptions {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly timeout?: Duration.Input | undefined
}

/** The default limit of one call, the same as the task runner's. */
const defaultProviderTimeout = Duration.seconds(60)

const decodeResponse = Schema.decodeUnknownEffect(ChatCompletionResponse)

/** Runs completions on an OpenAI-compatible `POST {baseUrl}/chat/completions`; the key goes only into `Authorization`. */
export class OpenAiCompatibleProvider {
  /** The provider over the app's `HttpClient`. */
  static readonly layerWith = (options: OpenAiCompatibleOptions): Layer.Layer<AiProvider, never, HttpClient.HttpClient> =>
    Layer.effect(
      AiProvider,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
        const timeout = Option.getOrElse(Option.flatMap(Option.fromNullishOr(options.timeout), Duration.fromInput), () => defaultProviderTimeout)

        // Every failure is mapped to a `ProviderError` with fixed text before it leaves: the client's own errors
        // carry the request, and with it the Authorization header.
        const call = (request: AiCompletionRequest): Effect.Effect<AiCompletion, ProviderError> =>
          Effect.gen(function*() {
            const post = yield* HttpClientRequest.post(url).pipe(
              HttpClientRequest.bearerToken(options.apiKey),
              HttpClientRequest.acceptJson,
              HttpClientRequest.bodyJson(chatCompletionBody(request)),
              Effect.mapError(unsendableRequest)
            )
            const response = yield* client.execute(post).pipe(Effect.mapError(transportFailure))
            if (response.status < 200 || response.status >= 300) return yield* statusFailure(response.status)
            const json = yield* response.json.pipe(Effect.mapError(malformedResponse))
            return toCompletion(yield* decodeResponse(json).pipe(Effect.mapError(malformedResponse)))
          })

        const complete = Effect.fn("OpenAiCompatibleProvider.complete")(function*(request: AiCompletionRequest) {
          return yield* call(request).pipe(
            Effect.timeoutOption(timeout),
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(providerTimedOut()), onSome: Effect.succeed })),
            Effect.tapError((error) =>
              Effect.logWarning("AI provider call failed").pipe(
                Effect.annotateLogs({ code: error.code, retryable: error.retryable, model: request.spec.model })
              )
            )
          )
        })

        return AiProvider.of({ complete })
      })
    )
}
