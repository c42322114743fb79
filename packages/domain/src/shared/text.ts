import { Schema } from "effect"

/**
 * Whether a string is text every layer can keep: well-formed Unicode (no lone surrogate, which is not a character
 * and breaks UTF-8) and no NUL (which Postgres `text` cannot hold).
 */
export const isStorableText = (text: string): boolean => !text.includes("\u0000") && text.isWellFormed()

/** The check behind `Text`, for string schemas that carry other checks too. */
export const isText = Schema.makeFilter(
  (text: string) => isStorableText(text) || "must be well-formed Unicode without NUL characters",
  { expected: "text without NUL characters or lone surrogates" }
)

/** THE string schema of every input: any string, but never NUL or a lone surrogate (one rule, at the schema level). */
export const Text = Schema.String.check(isText)
