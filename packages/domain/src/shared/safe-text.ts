import { Effect, Schema } from "effect"
import { InvalidInput } from "./errors.ts"

// C0 controls, DEL and C1 controls; multi-line text keeps tab, line feed and carriage return.
const singleLineControls = /[\u0000-\u001F\u007F-\u009F]/
const multiLineControls = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/
// In a `u` regular expression a surrogate range matches only halves that are not part of a pair.
const loneSurrogate = /[\uD800-\uDFFF]/u

/** Whether client text may be stored and echoed: no NUL or other control characters, no lone surrogates. */
export const isSafeTextValue = (text: string, options?: { readonly multiline?: boolean | undefined }): boolean =>
  !(options?.multiline === true ? multiLineControls : singleLineControls).test(text) && !loneSurrogate.test(text)

/**
 * The one check every client string passes (names, emails, urls, titles, prompts, descriptions): no NUL, no other
 * C0/C1 control character (multi-line text may hold tab, LF and CR) and no lone surrogate, which storage and JSON
 * encoders cannot represent faithfully.
 */
export const isSafeText = (options?: { readonly multiline?: boolean | undefined }) =>
  Schema.makeFilter((text: string) => isSafeTextValue(text, options), {
    expected: options?.multiline === true
      ? "text without control characters (other than tab and line breaks) or lone surrogates"
      : "single-line text without control characters or lone surrogates"
  })

/** A single line of client text (a name, an email, a URL, a title). */
export const SafeText = Schema.String.check(isSafeText())

/** Client text that may span lines (a prompt, a description, a message). */
export const SafeMultilineText = Schema.String.check(isSafeText({ multiline: true }))

/**
 * Decodes a domain input with its schema, for services called without the HTTP contract in front (embedders, the
 * CLI): a failure is `InvalidInput` naming the field, before anything is stored.
 */
export const decodeInput = <S extends Schema.Top>(schema: S, field: string) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (value: unknown): Effect.Effect<S["Type"], InvalidInput, S["DecodingServices"]> =>
    decode(value).pipe(Effect.mapError((error) => new InvalidInput({ detail: `${field}: ${error.message}` })))
}
