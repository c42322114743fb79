import { AiProvider, ProviderError, type ProviderKind } from "@atrium/domain"
import { Context, Effect, Layer, Option } from "effect"

/** One provider per kind; `local` always exists, hosted kinds only when configured. */
export interface ProvidersByKind {
  readonly local: AiProvider["Service"]
  readonly "openai-compatible"?: AiProvider["Service"] | undefined
}

/** An `AiProvider` that runs each completion on the provider of its model's kind; an unconfigured kind fails without retry. */
export const routeProviders = (byKind: ProvidersByKind): AiProvider["Service"] =>
  AiProvider.of({
    complete: (request) => {
      const kind: ProviderKind = request.spec.provider
      const provider = byKind[kind]
      return provider === undefined
        ? Effect.fail(new ProviderError({ code: "provider_unavailable", retryable: false, message: `No ${kind} provider is configured` }))
        : provider.complete(request)
    }
  })

/** Routing `AiProvider` layers. */
export const AiProviderRouter = {
  /** Routes to `local` and, when given, to the OpenAI-compatible provider layer. */
  layerWith: <E = never, R = never>(providers: {
    readonly local: Layer.Layer<AiProvider>
    readonly openaiCompatible: Option.Option<Layer.Layer<AiProvider, E, R>>
  }): Layer.Layer<AiProvider, E, R> =>
    Layer.effect(
      AiProvider,
      Effect.gen(function*() {
        // Built in this layer's scope, so each provider lives as long as the router.
        const serviceOf = <E2, R2>(layer: Layer.Layer<AiProvider, E2, R2>) => Layer.build(layer).pipe(Effect.map(Context.get(AiProvider)))
        const local = yield* serviceOf(providers.local)
        const hosted = Option.isSome(providers.openaiCompatible) ? yield* serviceOf(providers.openaiCompatible.value) : undefined
        return routeProviders({ local, "openai-compatible": hosted })
      })
    )
}
