import { Schema } from "effect"

/**
 * A string from a store payload: well-formed Unicode only. A lone surrogate (legal in JSON as `\ud800`, even under a
 * valid signature) cannot be put in a URL, a log line or a column faithfully, so it is refused where the payload is decoded.
 */
export const StoreText = Schema.String.check(
  Schema.makeFilter((text: string) => text.isWellFormed(), { expected: "well-formed Unicode text (no lone surrogates)" })
)
