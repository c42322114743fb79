import type { AiTaskInput } from "./ai-task.ts"
import type { ModelSpec } from "./model-catalog.ts"

/** One completion to run: the catalog entry (which provider, which limits), the input and the output bound. */
export interface AiCompletionRequest {
  readonly spec: ModelSpec
  readonly input: AiTaskInput
  readonly maxOutputTokens: number
}

/** What the provider produced and the tokens it counted. */
export interface AiCompletion {
  readonly output: string
  readonly inputTokens: number
  readonly outputTokens: number
}
