import { Option, Result, Schema } from "effect"
import { confusableSkeleton } from "../shared/index.ts"
import { punycodeDecode } from "./punycode.ts"

/** A custom hostname as stored: lower-case ASCII (IDNA labels as punycode), at least two labels, no trailing dot. */
export const Hostname = Schema.String.check(
  Schema.isPattern(/^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/)
).annotate({ description: "Hostname, lower-case, internationalized labels as punycode (`xn--…`)", examples: ["app.example.com"] })
  .pipe(Schema.brand("Hostname"))
export type Hostname = typeof Hostname.Type

/** Special-use names (RFC 6761, 6762, 7686, 9476 and `.internal`) that never resolve publicly; always refused. */
export const reservedSuffixes: ReadonlyArray<string> = ["localhost", "local", "localdomain", "internal", "invalid", "onion", "arpa", "alt"]

const asciiLabel = /^[a-z0-9-]+$/
const unicodeLabel = /^[\p{L}\p{M}\p{N}-]+$/u
// WHATWG URL parsing reads a name whose last label is numeric (or 0x…) as an IPv4 address.
const numericLabel = /^(?:0x[0-9a-f]*|[0-9]+)$/

// UTS #46 ToASCII of a whole name, by the WHATWG URL host parser every runtime ships (Node's is its `domainToASCII`).
const toAsciiName = (name: string): Option.Option<string> =>
  Option.fromNullishOr(URL.parse(`http://${name}/`)).pipe(Option.map((url) => url.hostname))

// An A-label is valid only when it decodes to non-ASCII NFC text that UTS #46 encodes back to the same label.
const decodeALabel = (label: string): Option.Option<string> =>
  punycodeDecode(label.slice(4)).pipe(
    Option.filter((unicode) => /[^\x00-\x7f]/.test(unicode) && unicode === unicode.normalize("NFC")),
    Option.filter((unicode) => Option.contains(toAsciiName(`${unicode}.example`), `${label}.example`))
  )

const checkLabel = (label: string): Result.Result<string, string> => {
  if (label.length === 0) return Result.fail("a hostname has no empty labels")
  if (!asciiLabel.test(label)) return Result.fail("a hostname holds only letters, digits and hyphens")
  if (label.length > 63) return Result.fail("a hostname label has at most 63 characters")
  if (label.startsWith("-") || label.endsWith("-")) return Result.fail("a hostname label neither starts nor ends with a hyphen")
  if (label.startsWith("xn--")) {
    const unicode = decodeALabel(label)
    if (Option.isNone(unicode)) return Result.fail(`${label} is not a valid internationalized label`)
    return unicodeLabel.test(unicode.value) ? Result.succeed(unicode.value) : Result.fail("a hostname holds only letters, digits and hyphens")
  }
  // IDNA 2008 reserves every other label with hyphens in its 3rd and 4th places (RFC 5891 §4.2.3.1).
  if (label.slice(2, 4) === "--") return Result.fail(`${label} is a reserved label form`)
  return Result.succeed(label)
}

interface Name {
  readonly ascii: string
  readonly unicode: string
}

// A name in both forms: UTS #46 (mapping, lower-casing, full stops, punycode), one trailing dot dropped, every label checked.
const toName = (input: string): Result.Result<Name, string> => {
  const ascii = toAsciiName(input)
  if (Option.isNone(ascii)) return Result.fail("a hostname holds only letters, digits and hyphens")
  // One trailing dot is the fully qualified spelling of the same name.
  const name = ascii.value.endsWith(".") ? ascii.value.slice(0, -1) : ascii.value
  const unicode: Array<string> = []
  for (const label of name.split(".")) {
    const checked = checkLabel(label)
    if (Result.isFailure(checked)) return Result.fail(checked.failure)
    unicode.push(checked.success)
  }
  return Result.succeed({ ascii: name, unicode: unicode.join(".") })
}

/**
 * Normalises what a person typed into a `Hostname`, or says why it cannot be one. IDNA is done here (UTS #46 by the
 * WHATWG URL parser, A-labels decoded and required to round-trip), so every caller — HTTP, embedders, tests — gets the
 * same answer without a port.
 */
export const normalizeHostname = (input: string): Result.Result<Hostname, string> => {
  const trimmed = input.trim()
  if (trimmed.length === 0) return Result.fail("a hostname is required")
  if (trimmed.includes("*")) return Result.fail("wildcard hostnames are not allowed; add each hostname on its own")
  if (/[/\\?#@%]/.test(trimmed)) return Result.fail("give the hostname alone, without a scheme, path or credentials")
  if (trimmed.startsWith("[") || /^[0-9a-f:.]*:[0-9a-f:.]*$/i.test(trimmed)) return Result.fail("an IP address is not a hostname")
  if (trimmed.includes(":")) return Result.fail("give the hostname without a port")
  const name = toName(trimmed)
  if (Result.isFailure(name)) return Result.fail(name.failure)
  const labels = name.success.ascii.split(".")
  if (labels.length < 2) return Result.fail("a hostname has at least two labels, like example.com")
  if (numericLabel.test(labels.at(-1) ?? "")) return Result.fail("an IP address is not a hostname")
  const hostname = Hostname.makeOption(name.success.ascii)
  return hostname._tag === "Some" ? Result.succeed(hostname.value) : Result.fail("a hostname has at most 253 characters")
}

/** The Unicode form of a stored hostname, for people (`xn--bcher-kva.example` → `bücher.example`); a label that does not decode stays as stored. */
export const hostnameToUnicode = (hostname: string): string =>
  hostname.split(".").map((label) => label.startsWith("xn--") ? Option.getOrElse(decodeALabel(label), () => label) : label).join(".")

const isUnder = (name: string, suffix: string): boolean => name === suffix || name.endsWith(`.${suffix}`)

/**
 * Whether `hostname` is, or is under, one of `suffixes` or a special-use name: compared in ASCII form, and by
 * confusable skeleton of the Unicode form, so a look-alike (`аtrium.dev` in Cyrillic) is denied like the original.
 */
export const isDeniedHostname = (hostname: Hostname, suffixes: ReadonlyArray<string>): boolean => {
  const skeleton = confusableSkeleton(hostnameToUnicode(hostname))
  return [...reservedSuffixes, ...suffixes].some((suffix) => {
    const name = toName(suffix.trim().replace(/^\.+/, ""))
    // A suffix that is not a name denies nothing rather than everything.
    if (Result.isFailure(name) || name.success.ascii.length === 0) return false
    return isUnder(hostname, name.success.ascii) || isUnder(skeleton, confusableSkeleton(name.success.unicode))
  })
}
