import { Option, Schema } from "effect"
import { isLatinLookalike, isSafeText, isSafeTextValue } from "../shared/index.ts"

// Deliberately loose: one `@`, a dot in the domain, no spaces. Deliverability is proven by mail, not by a regex.
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const maxEmailLength = 254

// The domain after the last `@`: case-insensitive (RFC 5321 §2.4), so stored lower-case.
const domainOf = (text: string) => text.slice(text.lastIndexOf("@") + 1)

/**
 * An email address as stored: the normal form of `normalizeEmail` (NFKC, no invisible characters, lower-case domain).
 * The local part keeps its case as given (RFC 5321: only the receiving server may fold it); addresses are compared by
 * `emailKey`, which ignores case.
 */
export const Email = Schema.String.check(
  isSafeText(),
  Schema.isMaxLength(maxEmailLength),
  Schema.isPattern(emailPattern),
  Schema.makeFilter((text: string) => (text === text.trim() && domainOf(text) === domainOf(text).toLowerCase()) || "must be trimmed, with a lower-case domain")
).annotate({ description: "Email address, normalised (NFKC, lower-case domain, no invisible characters)", examples: ["ada@example.com"] }).pipe(
  Schema.brand("Email")
)
export type Email = typeof Email.Type

/** An email address as a client types it (normalised and judged by `normalizeEmail`): one line of 1–254 characters. */
export const EmailInput = Schema.String.check(isSafeText(), Schema.isBetweenLength(1, maxEmailLength)).annotate({
  description: "Email address",
  examples: ["ada@example.com"]
})

// Scripts a character may belong to; anything else that is not Common/Inherited counts as a script of its own.
const scripts: ReadonlyArray<readonly [string, RegExp]> = [
  ["Latin", /\p{Script=Latin}/u],
  ["Cyrillic", /\p{Script=Cyrillic}/u],
  ["Greek", /\p{Script=Greek}/u],
  ["Armenian", /\p{Script=Armenian}/u],
  ["Georgian", /\p{Script=Georgian}/u],
  ["Hebrew", /\p{Script=Hebrew}/u],
  ["Arabic", /\p{Script=Arabic}/u],
  ["Devanagari", /\p{Script=Devanagari}/u],
  ["Thai", /\p{Script=Thai}/u],
  ["Han", /\p{Script=Han}/u],
  ["Hiragana", /\p{Script=Hiragana}/u],
  ["Katakana", /\p{Script=Katakana}/u],
  ["Hangul", /\p{Script=Hangul}/u],
  ["Bopomofo", /\p{Script=Bopomofo}/u],
  ["Cherokee", /\p{Script=Cherokee}/u]
]
const neutral = /[\p{Script=Common}\p{Script=Inherited}]/u

// UTS #39 "highly restrictive": one script, or Latin with the scripts one East Asian language writes together.
const allowedMixes: ReadonlyArray<ReadonlySet<string>> = [
  new Set(["Latin", "Han", "Hiragana", "Katakana"]),
  new Set(["Latin", "Han", "Hangul"]),
  new Set(["Latin", "Han", "Bopomofo"])
]

const scriptOf = (char: string): string | undefined => {
  if (neutral.test(char)) return undefined
  for (const [name, pattern] of scripts) if (pattern.test(char)) return name
  return `other:${char.codePointAt(0)?.toString(16) ?? ""}`
}

/** Whether one part of an address (the local part, or one domain label) reads unambiguously. */
const isUnambiguous = (part: string): boolean => {
  const used = new Set<string>()
  const letters: Array<string> = []
  for (const char of part) {
    const script = scriptOf(char)
    if (script !== undefined) {
      used.add(script)
      letters.push(char)
    }
  }
  if (used.size > 1 && !allowedMixes.some((mix) => Array.from(used).every((script) => mix.has(script)))) return false
  // A label entirely of foreign letters that all pass for Latin ones ("аре", Cyrillic) is a whole-script homoglyph.
  return used.has("Latin") || letters.length === 0 || !letters.every(isLatinLookalike)
}

// Zero-width spaces and joiners, soft hyphens, variation selectors, bidi marks…: invisible, so never significant.
const defaultIgnorable = /\p{Default_Ignorable_Code_Point}/gu

/** The text of an address in normal form: invisible characters removed, NFKC (fullwidth → ASCII), trimmed, lower-case domain. */
export const emailNormalForm = (text: string): string => {
  const normal = text.replace(defaultIgnorable, "").normalize("NFKC").trim()
  const at = normal.lastIndexOf("@")
  return at < 0 ? normal : `${normal.slice(0, at)}@${normal.slice(at + 1).toLowerCase().normalize("NFKC")}`
}

/** What addresses are compared (and kept unique) by: the normal form, all lower-case. `Ada@x.test` is `ada@x.test`. */
export const emailKey = (email: Email | string): string => emailNormalForm(email).toLowerCase().normalize("NFKC")

/** Whether two stored addresses name the same mailbox, as accounts and invitations compare them. */
export const sameEmail = (a: Email, b: Email): boolean => emailKey(a) === emailKey(b)

/**
 * Normalises an email the way accounts and invitations store it; none when it is not an address, holds control
 * characters, or mixes scripts in a way the normal form cannot make safe (a Cyrillic `а` among Latin letters, a
 * label of Latin lookalikes only).
 */
export const normalizeEmail = (text: string): Option.Option<Email> => {
  if (!isSafeTextValue(text)) return Option.none()
  const normal = emailNormalForm(text)
  // Judged in lower case: the lookalike tables hold lower-case letters, and case never makes an address safe.
  const key = emailKey(normal)
  const at = key.lastIndexOf("@")
  if (at <= 0) return Option.none()
  const local = key.slice(0, at)
  const labels = key.slice(at + 1).split(".")
  if (!isUnambiguous(local) || !labels.every(isUnambiguous)) return Option.none()
  return Email.makeOption(normal)
}
