import type { AiCompletion, AiCompletionRequest, AiTaskInput, ChatMessage } from "@atrium/domain"
import { Schema } from "effect"

/** The `POST /chat/completions` body: the catalog's model id, the conversation and the output bound. */
export interface ChatCompletionBody {
  readonly model: string
  readonly messages: ReadonlyArray<ChatMessage>
  readonly max_tokens: number
}

// A prompt is a one-message conversation from the user.
const messagesOf = (input: AiTaskInput): ReadonlyArray<ChatMessage> =>
  "prompt" in input ? [{ role: "user", content: input.prompt }] : input.messages.map((m) => ({ role: m.role, content: m.content }))

/** The request body for one completion. */
export const chatCompletionBody = (request: AiCompletionRequest): ChatCompletionBody => ({
  model: request.spec.model,
  messages: messagesOf(request.input),
  max_tokens: request.maxOutputTokens
})

const TokenCount = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** The part of a chat completion response Atrium reads: the first choice's text and the token counts. */
export const ChatCompletionResponse = Schema.Struct({
  choices: Schema.Array(Schema.Struct({ message: Schema.Struct({ content: Schema.String }) })).check(Schema.isMinLength(1)),
  usage: Schema.Struct({ prompt_tokens: TokenCount, completion_tokens: TokenCount })
})

/** The completion a decoded response carries. */
export const toCompletion = (response: typeof ChatCompletionResponse.Type): AiCompletion => ({
  output: response.choices[0]?.message.content ?? "",
  inputTokens: response.usage.prompt_tokens,
  outputTokens: response.usage.completion_tokens
})
