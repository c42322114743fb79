import { Context, Effect, Layer, Schema } from "effect"
import type { AiCompletion, AiCompletionRequest } from "./ai-completion.ts"
import { completeLocally } from "./ai-local-model.ts"

/** Why a provider call failed, classified so the runner knows whether to retry. */
export const ProviderErrorCode = Schema.Literals([
  "provider_timeout",
  "provider_unavailable",
  "provider_rate_limited",
  "provider_rejected",
  "provider_auth",
  "provider_error",
  "provider_invalid_response"
]).annotate({ description: "Classified provider failure" })
export type ProviderErrorCode = typeof ProviderErrorCode.Type

/** A failed provider call. Its message is shown to the workspace, so adapters must never put a credential in it. */
export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  code: ProviderErrorCode,
  retryable: Schema.Boolean,
  message: Schema.String
}) {}

/** Port: runs a completion on the model's provider; credentials stay inside the adapter. */
export class AiProvider extends Context.Service<AiProvider, {
  readonly complete: (request: AiCompletionRequest) => Effect.Effect<AiCompletion, ProviderError>
}>()("@atrium/domain/AiProvider") {
  /**
   * The embedded default: runs `local` models deterministically with no I/O; refuses models of other providers
   * (never pretend to be a paid model), without retry.
   */
  static readonly layer = Layer.succeed(AiProvider, AiProvider.of({
    complete: (request) =>
      request.spec.provider === "local"
        ? Effect.succeed(completeLocally(request))
        : Effect.fail(new ProviderError({ code: "provider_rejected", retryable: false, message: `No ${request.spec.provider} provider is configured` }))
  }))
}
