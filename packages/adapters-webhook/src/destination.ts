import { lookup } from "node:dns"
import { isIP } from "node:net"
import { Effect, Schema } from "effect"
import { classifyNetworkError } from "./attempt-error.ts"
import { type AllowList, checkAddress } from "./ssrf-guard.ts"

/** One address a host name resolved to. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** A destination URL that passed the guard, with every address it may connect to. */
export interface Destination {
  readonly url: URL
  /** Host without IPv6 brackets: for SNI, certificate checks and the Host header. */
  readonly hostname: string
  readonly port: number
  readonly secure: boolean
  readonly addresses: ReadonlyArray<ResolvedAddress>
}

/**
 * Why a destination may not be contacted: refused by the guard, unresolvable, or resolution timed out. `reason` may be
 * shown to the caller (it never names a resolved address); `detail` names the address and goes to the server log only.
 */
export class DestinationRefused extends Schema.TaggedError<DestinationRefused>()("DestinationRefused", {
  kind: Schema.Literals(["blocked", "dns", "timeout"]),
  reason: Schema.String,
  detail: Schema.optional(Schema.String)
}) {}

/** What the caller is told when the guard refuses an address: that it is not allowed, not which address it was. */
const notAllowed = "the destination is not allowed"

/** Resolves a host name to all of its addresses. */
export type Resolver = (hostname: string, timeoutMillis: number) => Effect.Effect<ReadonlyArray<ResolvedAddress>, DestinationRefused>

/** The operating system's resolver (`dns.lookup` with `all: true`), bounded by a timeout. */
export const systemResolver: Resolver = (hostname, timeoutMillis) =>
  Effect.callback<ReadonlyArray<ResolvedAddress>, DestinationRefused>((resume) => {
    // getaddrinfo cannot be cancelled; on timeout we only stop waiting for it.
    const timer = setTimeout(() => {
      resume(Effect.fail(new DestinationRefused({ kind: "timeout", reason: `resolving ${hostname} timed out` })))
    }, timeoutMillis)
    lookup(hostname, { all: true, order: "verbatim" }, (error, addresses) => {
      clearTimeout(timer)
      if (error !== null) {
        const kind = classifyNetworkError(error) === "timeout" ? "timeout" : "dns"
        resume(Effect.fail(new DestinationRefused({ kind, reason: `${hostname} does not resolve (${error.code ?? error.message})` })))
      } else {
        resume(Effect.succeed(addresses.flatMap(({ address, family }) =>
          family === 4 || family === 6 ? [{ address, family }] : []
        )))
      }
    })
    return Effect.sync(() => clearTimeout(timer))
  })

const refuse = (reason: string) => Effect.fail(new DestinationRefused({ kind: "blocked", reason }))

/** Options of a destination check. */
export interface ResolveOptions {
  readonly allowList: AllowList
  readonly resolver: Resolver
  readonly timeoutMillis: number
}

/**
 * Parses and checks a webhook URL: `https:` (or `http:` to allow-listed networks only), no credentials, a valid
 * port, and a host whose every address passes the SSRF guard (one bad answer refuses all: a rebinding
 * resolver could otherwise hand the connection the bad one). Untraced: it runs before every attempt.
 */
export const resolveDestination = Effect.fnUntraced(function*(text: string, options: ResolveOptions) {
  const url = URL.parse(text)
  if (url === null) return yield* refuse("not a valid absolute URL")
  if (url.protocol !== "https:" && url.protocol !== "http:") return yield* refuse(`scheme ${url.protocol} is not allowed`)
  if (url.username !== "" || url.password !== "") return yield* refuse("credentials in the URL are not allowed")
  // The WHATWG parser already rejects non-numeric and out-of-range ports and normalises odd IPv4 spellings.
  if (url.port === "0") return yield* refuse("port 0 is not allowed")
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
  if (hostname === "") return yield* refuse("the URL has no host")
  const family = isIP(hostname)
  const addresses: ReadonlyArray<ResolvedAddress> = family === 4 || family === 6
    ? [{ address: hostname, family }]
    : yield* options.resolver(hostname, options.timeoutMillis)
  if (addresses.length === 0) {
    return yield* Effect.fail(new DestinationRefused({ kind: "dns", reason: `${hostname} has no addresses` }))
  }
  const verdicts = addresses.map((entry) => checkAddress(options.allowList, entry.address))
  for (const verdict of verdicts) {
    if (verdict._tag === "Blocked") {
      return yield* Effect.fail(
        new DestinationRefused({ kind: "blocked", reason: notAllowed, detail: `${hostname} resolves to a blocked address: ${verdict.reason}` })
      )
    }
  }
  const secure = url.protocol === "https:"
  // Plain http is for local development receivers only: every address must be inside an allow-listed network.
  if (!secure && !verdicts.every((verdict) => verdict._tag === "Allowed" && verdict.allowListed)) {
    return yield* refuse("http: is only allowed to allow-listed networks; use https:")
  }
  const port = url.port === "" ? (secure ? 443 : 80) : Number(url.port)
  const destination: Destination = { url, hostname, port, secure, addresses }
  return destination
})
