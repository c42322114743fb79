import { Effect, Option, Schema } from "effect"
import { Actor } from "../shared/index.ts"
import { ScheduleId, TaskId, WorkspaceId } from "../shared/index.ts"
import { Micros } from "../shared/index.ts"
import { ModelId } from "../shared/index.ts"
import { isSafeText, SafeMultilineText, SafeText } from "../shared/index.ts"

/** Most UTF-8 bytes of input text one task may carry (64 KiB). */
export const maxInputBytes = 64 * 1024

/** Who speaks in a chat message. */
export const ChatRole = Schema.Literals(["system", "user", "assistant"])
export type ChatRole = typeof ChatRole.Type

/** One chat message of a task's input. */
export const ChatMessage = Schema.Struct({
  role: ChatRole,
  content: SafeMultilineText
}).annotate({ identifier: "ChatMessage" })
export type ChatMessage = typeof ChatMessage.Type

/** A single prompt. */
export const PromptInput = Schema.Struct({
  prompt: SafeMultilineText.check(Schema.isMinLength(1))
}).annotate({ identifier: "PromptInput" })

/** A conversation of 1–100 messages. */
export const MessagesInput = Schema.Struct({
  messages: Schema.Array(ChatMessage).check(Schema.isBetweenLength(1, 100))
}).annotate({ identifier: "MessagesInput" })

const utf8 = new TextEncoder()

/** The input's text pieces: the prompt, or every message's content. */
export const inputTexts = (input: typeof PromptInput.Type | typeof MessagesInput.Type): ReadonlyArray<string> =>
  "prompt" in input ? [input.prompt] : input.messages.map((message) => message.content)

/** UTF-8 bytes of all input text: what the size bound and the token upper bound are measured in. */
export const inputBytes = (input: typeof PromptInput.Type | typeof MessagesInput.Type): number =>
  inputTexts(input).reduce((sum, text) => sum + utf8.encode(text).length, 0)

/** What a task runs on: a prompt or chat messages, at most 64 KiB of UTF-8 text in all. */
export const AiTaskInput = Schema.Union([PromptInput, MessagesInput])
  .check(Schema.makeFilter((input) => inputBytes(input) <= maxInputBytes || `input text must be at most ${maxInputBytes} bytes of UTF-8`))
  .annotate({ identifier: "AiTaskInput", description: "Either `{ prompt }` or `{ messages: [{ role, content }] }` (1–100), at most 64 KiB of text" })
export type AiTaskInput = typeof AiTaskInput.Type

/** A caller's cap on output tokens: a positive integer (the model's own maximum bounds it further). */
export const MaxOutputTokens = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
  description: "Most output tokens to generate; defaults to, and may not exceed, the model's maximum"
})

/** Caller's labels on a task: at most 20 keys of ≤ 40 characters, values of ≤ 500. */
export const AiTaskMetadata = Schema.Record(Schema.String, SafeText.check(Schema.isMaxLength(500)))
  // A checked key schema would silently drop keys that fail it; checking the property names refuses them instead.
  .check(Schema.isMaxProperties(20), Schema.isPropertyNames(Schema.String.check(isSafeText(), Schema.isBetweenLength(1, 40))))
  .annotate({ identifier: "AiTaskMetadata", description: "Up to 20 string labels, echoed back" })
export type AiTaskMetadata = typeof AiTaskMetadata.Type

/** The submission payload, as the public interface takes it (`POST /api/v1/ai-tasks`). */
export const AiTaskRequest = Schema.Struct({
  model: SafeText.check(Schema.isBetweenLength(1, 100)).annotate({ description: "Model id from the catalog", examples: ["atrium-local-1"] }),
  input: AiTaskInput,
  maxOutputTokens: Schema.optional(MaxOutputTokens),
  metadata: Schema.optional(AiTaskMetadata)
}).annotate({ identifier: "AiTaskRequest" })
export type AiTaskRequest = typeof AiTaskRequest.Type

/** Where a task stands; `succeeded` and `failed` are final. */
export const AiTaskStatus = Schema.Literals(["queued", "running", "succeeded", "failed"]).annotate({
  description: "queued: waiting for a worker (or a retry); running: a worker holds it; succeeded/failed: final"
})
export type AiTaskStatus = typeof AiTaskStatus.Type

/** Why a task failed: a provider error code and a message fit for the caller (never a credential). */
export const AiTaskError = Schema.Struct({ code: Schema.String, message: Schema.String }).annotate({ identifier: "AiTaskError" })
export type AiTaskError = typeof AiTaskError.Type

/** One AI task: what was asked, what it may cost (reserved), and once finished what it produced and cost. */
export class AiTask extends Schema.Class<AiTask>("@atrium/domain/AiTask")({
  id: TaskId,
  workspaceId: WorkspaceId,
  model: ModelId,
  status: AiTaskStatus,
  input: AiTaskInput,
  maxOutputTokens: MaxOutputTokens,
  metadata: AiTaskMetadata,
  output: Schema.OptionFromNullOr(Schema.String),
  inputTokens: Schema.OptionFromNullOr(Schema.Int),
  outputTokens: Schema.OptionFromNullOr(Schema.Int),
  /** Final cost in micro-USD; 0 for a failed task. */
  costMicros: Schema.OptionFromNullOr(Micros),
  /** Worst-case cost held against the credit balance and the spend cap until the task finishes. */
  reservedMicros: Micros,
  error: Schema.OptionFromNullOr(AiTaskError),
  /** Claims so far (each worker claim counts, so a task that keeps crashing its worker is given up on). */
  attempts: Schema.Int,
  /** When a worker may next claim it: the queue time, or the end of the current worker's lease. */
  nextAttemptAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  submittedBy: Actor,
  /** The schedule that submitted it, when a schedule did (omitted at construction: none). */
  scheduleId: Schema.OptionFromNullOr(ScheduleId).pipe(Schema.withConstructorDefault(Effect.succeed(Option.none()))),
  createdAt: Schema.DateTimeUtc,
  startedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc),
  finishedAt: Schema.OptionFromNullOr(Schema.DateTimeUtc)
}) {
  /** Succeeded or failed: nothing changes it any more. */
  get isFinished(): boolean {
    return this.status === "succeeded" || this.status === "failed"
  }
}
