import { type AiTaskInput, inputBytes } from "./ai-task.ts"
import type { ModelSpec } from "./model-catalog.ts"

/** `ceil(tokens × pricePerMTok / 1_000_000)` in integer micro-USD, exact (BigInt) however large the product. */
export const priceTokens = (tokens: number, microsPerMTok: number): number => {
  const product = BigInt(Math.max(0, Math.trunc(tokens))) * BigInt(Math.max(0, Math.trunc(microsPerMTok)))
  return Number((product + 999_999n) / 1_000_000n)
}

/**
 * An upper bound of the input's tokens: its UTF-8 bytes (a token is never shorter than a byte), capped at the model's
 * input limit (the provider refuses more, and a refused task costs nothing).
 */
export const inputTokenUpperBound = (spec: ModelSpec, input: AiTaskInput): number => Math.min(inputBytes(input), spec.maxInputTokens)

/** The usual tokenizer density (≈ 4 bytes a token), used to refuse input that plainly exceeds the model's limit. */
export const estimatedInputTokens = (input: AiTaskInput): number => Math.ceil(inputBytes(input) / 4)

/** Whether the input plainly exceeds the model's input limit (a 400 before anything is reserved). */
export const exceedsInputLimit = (spec: ModelSpec, input: AiTaskInput): boolean => estimatedInputTokens(input) > spec.maxInputTokens

/** The most a task can cost: the input bound and every allowed output token, each at catalog prices. */
export const worstCaseCostMicros = (spec: ModelSpec, input: AiTaskInput, maxOutputTokens: number): number =>
  priceTokens(inputTokenUpperBound(spec, input), spec.inputPriceMicrosPerMTok) + priceTokens(maxOutputTokens, spec.outputPriceMicrosPerMTok)

/** What a finished task costs from its real usage, priced the same way, never above what was reserved. */
export const actualCostMicros = (
  spec: ModelSpec,
  usage: { readonly inputTokens: number; readonly outputTokens: number },
  reservedMicros: number
): number =>
  Math.min(
    reservedMicros,
    priceTokens(usage.inputTokens, spec.inputPriceMicrosPerMTok) + priceTokens(usage.outputTokens, spec.outputPriceMicrosPerMTok)
  )
