import { inputBytes } from "./ai-task.ts"
import type { AiCompletion, AiCompletionRequest } from "./ai-completion.ts"

const utf8 = new TextEncoder()

// The local model counts one token per started 4 bytes, so tests can predict usage and cost exactly.
const tokensOf = (bytes: number) => Math.ceil(bytes / 4)

/** The longest prefix of `text` (whole code points) that fits in `maxBytes` of UTF-8. */
const truncateUtf8 = (text: string, maxBytes: number): string => {
  let bytes = 0
  let out = ""
  for (const char of text) {
    const size = utf8.encode(char).length
    if (bytes + size > maxBytes) break
    bytes += size
    out += char
  }
  return out
}

/** The text the local model answers to: the prompt, or the last user message (else the last message). */
const lastUserText = (request: AiCompletionRequest): string => {
  const input = request.input
  if ("prompt" in input) return input.prompt
  const users = input.messages.filter((message) => message.role === "user")
  return (users[users.length - 1] ?? input.messages[input.messages.length - 1])?.content ?? ""
}

/**
 * The deterministic local model: `"[<model>] " + the last user message`, cut to the output bound; tokens are
 * `ceil(bytes / 4)` of the input text and of the output.
 */
export const completeLocally = (request: AiCompletionRequest): AiCompletion => {
  const output = truncateUtf8(`[${request.spec.model}] ${lastUserText(request)}`, request.maxOutputTokens * 4)
  return {
    output,
    inputTokens: tokensOf(inputBytes(request.input)),
    outputTokens: tokensOf(utf8.encode(output).length)
  }
}
