import { UsageMonth } from "@atrium/domain"
import { Schema } from "effect"

const micros = (description: string) => Schema.Int.annotate({ description: `${description}, in micro-USD (1 USD = 1,000,000)` })

/** The workspace's AI usage this UTC month, its caps and its credit, as `GET /api/v1/usage` answers it. */
export const UsageView = Schema.Struct({
  month: UsageMonth,
  aiSpendMicros: micros("Final cost of this month's succeeded tasks"),
  reservedMicros: micros("Worst-case cost held by this month's unfinished tasks"),
  taskCount: Schema.Int.annotate({ description: "This month's tasks that have not failed" }),
  caps: Schema.Struct({
    aiSpendMicros: Schema.NullOr(Schema.Int).annotate({ description: "Monthly spend cap in micro-USD; `null` for none" }),
    aiTasks: Schema.NullOr(Schema.Int).annotate({ description: "Monthly task cap; `null` for none" })
  }),
  creditBalanceMicros: micros("Prepaid credit"),
  availableCreditMicros: micros("Credit not held by unfinished tasks: what new tasks can reserve")
}).annotate({ identifier: "Usage", description: "AI usage, caps and credit of the workspace for the current UTC month" })
export type UsageView = typeof UsageView.Type
