import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { CapMeter } from "./billing-errors.ts"

/** Events of the billing area. */
export const BillingEvents = {
  capReached: defineEvent(
    "usage.cap_reached",
    "A usage meter reached its monthly cap; sent once per month and cap.",
    Schema.Struct({
      meter: CapMeter,
      cap: Schema.Int,
      used: Schema.Int,
      month: Schema.String.annotate({ description: "UTC month, YYYY-MM" })
    })
  )
}
