import { Context, Effect, Layer, Schema } from "effect"
import type { AiTaskInput } from "./ai-task.ts"
import { completeLocally } from "./ai-local-model.ts"
import type { ModelSpec } from "./model-catalog.ts"

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

/** One completion to run: the catalog entry (which provider, which limits), the input and the output bound. */
export interface AiCompletionRequest {
  readonly spec: ModelSpec
  readonly input: AiTaskInput
  readonly maxOutputTokens: number
}

/** Most tokens one answer may report for its input or its output: beyond this it is an absurd answer, not a bill. */
export const maxReportedTokens = 2_147_483_647

/** A token count a provider reports: a whole number from 0 to `maxReportedTokens`. */
export const ReportedTokens = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: maxReportedTokens })).annotate({
  description: "Tokens counted by the provider"
})

/** What the provider produced and the tokens it counted; the runner decodes every answer with it before settling. */
export const AiCompletion = Schema.Struct({
  output: Schema.String,
  inputTokens: ReportedTokens,
  outputTokens: ReportedTokens
}).annotate({ identifier: "AiCompletion" })
export type AiCompletion = typeof AiCompletion.Type

/** Port: runs a completion on the model's provider; credentials stay inside the adapter. */
export class AiProvider extends Context.Service<AiProvider, {
  readonly complete: (request: AiCompletionRequest) => Effect.Effect<AiCompletion, ProviderError>
}>()("@atrium/domain/AiProvider") {
  /**
   * The embedded default: runs `local` models deterministically with no I/O; refuses models of other providers
   * (never pretend to be a paid model), without retry.
   */
  static readonly layerLocal = Layer.succeed(AiProvider, AiProvider.of({
    complete: (request) =>
      request.spec.provider === "local"
        ? Effect.succeed(completeLocally(request))
        : Effect.fail(new ProviderError({ code: "provider_rejected", retryable: false, message: `No ${request.spec.provider} provider is configured` }))
  }))
}
