import { Schema } from "effect"

/** Integer micro-USD; money is never a float. */
export const Micros = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
  description: "Amount in micro-USD (1 USD = 1,000,000)"
})
