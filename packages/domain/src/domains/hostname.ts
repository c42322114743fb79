import { Result, Schema } from "effect"
import { punycodeEncode } from "./punycode.ts"

/** A custom hostname as stored: lower-case ASCII (IDNA labels as punycode), at least two labels, no trailing dot. */
export const Hostname = Schema.String.check(
  Schema.isPattern(/^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/)
).annotate({ description: "Hostname, lower-case, internationalized labels as punycode (`xn--…`)", examples: ["app.example.com"] })
  .pipe(Schema.brand("Hostname"))
export type Hostname = typeof Hostname.Type

/** Special-use names (RFC 6761, 6762, 7686, 9476 and `.internal`) that never resolve publicly; always refused. */
export const reservedSuffixes: ReadonlyArray<string> = ["localhost", "local", "localdomain", "internal", "invalid", "onion", "arpa", "alt"]

// UTS #46 maps these full stops to ".", so "例え。jp" is "例え.jp".
const fullStops = /[\u3002\uFF0E\uFF61]/g
const asciiLabel = /^[a-z0-9-]+$/
const unicodeLabel = /^[\p{L}\p{M}\p{N}-]+$/u
// WHATWG URL parsing reads a name whose last label is numeric (or 0x…) as an IPv4 address.
const numericLabel = /^(?:0x[0-9a-f]*|[0-9]+)$/

const toAsciiLabel = (label: string): Result.Result<string, string> => {
  if (label.length === 0) return Result.fail("a hostname has no empty labels")
  if (asciiLabel.test(label)) return Result.succeed(label)
  if (!unicodeLabel.test(label)) return Result.fail("a hostname holds only letters, digits and hyphens")
  return Result.succeed(`xn--${punycodeEncode(label)}`)
}

// The labels of a name in ASCII form: full stops mapped, NFKC, lower-case, one trailing dot dropped, IDNA labels as punycode.
const asciiLabels = (input: string): Result.Result<ReadonlyArray<string>, string> => {
  const mapped = input.replace(fullStops, ".").normalize("NFKC").toLowerCase().normalize("NFC")
  // One trailing dot is the fully qualified spelling of the same name.
  const name = mapped.endsWith(".") ? mapped.slice(0, -1) : mapped
  const labels: Array<string> = []
  for (const label of name.split(".")) {
    const ascii = toAsciiLabel(label)
    if (Result.isFailure(ascii)) return Result.fail(ascii.failure)
    if (ascii.success.length > 63) return Result.fail("a hostname label has at most 63 characters")
    if (ascii.success.startsWith("-") || ascii.success.endsWith("-")) return Result.fail("a hostname label neither starts nor ends with a hyphen")
    labels.push(ascii.success)
  }
  return Result.succeed(labels)
}

/**
 * Normalises what a person typed into a `Hostname`, or says why it cannot be one. IDNA is done here, purely (UTS #46
 * mapping approximated by NFKC + lower-casing, then punycode), so every caller — HTTP, embedders, tests — gets the same
 * answer without a port; the app's tests compare it with Node's `domainToASCII`.
 */
export const normalizeHostname = (input: string): Result.Result<Hostname, string> => {
  const trimmed = input.trim()
  if (trimmed.length === 0) return Result.fail("a hostname is required")
  if (trimmed.includes("*")) return Result.fail("wildcard hostnames are not allowed; add each hostname on its own")
  if (/[/\\?#@]/.test(trimmed)) return Result.fail("give the hostname alone, without a scheme, path or credentials")
  if (trimmed.startsWith("[") || /^[0-9a-f:.]*:[0-9a-f:.]*$/i.test(trimmed)) return Result.fail("an IP address is not a hostname")
  if (trimmed.includes(":")) return Result.fail("give the hostname without a port")
  const labels = asciiLabels(trimmed)
  if (Result.isFailure(labels)) return Result.fail(labels.failure)
  if (labels.success.length < 2) return Result.fail("a hostname has at least two labels, like example.com")
  if (numericLabel.test(labels.success.at(-1) ?? "")) return Result.fail("an IP address is not a hostname")
  const hostname = Hostname.makeOption(labels.success.join("."))
  return hostname._tag === "Some" ? Result.succeed(hostname.value) : Result.fail("a hostname has at most 253 characters")
}

/** Whether `hostname` is, or is under, one of `suffixes` (compared in normalised form) or a special-use name. */
export const isDeniedHostname = (hostname: Hostname, suffixes: ReadonlyArray<string>): boolean =>
  [...reservedSuffixes, ...suffixes].some((suffix) => {
    const labels = asciiLabels(suffix.trim().replace(/^\.+/, ""))
    // A suffix that is not a name denies nothing rather than everything.
    if (Result.isFailure(labels) || labels.success.length === 0) return false
    const bare = labels.success.join(".")
    return hostname === bare || hostname.endsWith(`.${bare}`)
  })
