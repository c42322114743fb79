import { Schema } from "effect"
import type { AiTaskInput } from "./ai-task.ts"
import type { ModelSpec } from "./model-catalog.ts"

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
