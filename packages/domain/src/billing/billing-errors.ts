import { Schema } from "effect"

/** Usage meters whose monthly cap can stop an operation. */
export const CapMeter = Schema.Literals(["ai_spend", "ai_tasks"]).annotate({ description: "ai_spend: micro-USD spent on AI; ai_tasks: AI tasks submitted" })
export type CapMeter = typeof CapMeter.Type

/** The operation would take a usage meter beyond its monthly cap. */
export class UsageCapReached extends Schema.TaggedError<UsageCapReached>()("UsageCapReached", {
  code: Schema.tag("usage_cap_reached"),
  meter: CapMeter
}, { httpApiStatus: 402 }) {}

/** The credit balance (less what unfinished tasks hold) cannot cover the operation's worst-case cost. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  code: Schema.tag("insufficient_credits")
}, { httpApiStatus: 402 }) {}
