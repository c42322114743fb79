import { DnsLookupFailed, type DnsFailureReason, DnsResolver } from "@atrium/domain"
import { Duration, Effect, Layer, Option, Predicate } from "effect"
import { Resolver } from "node:dns/promises"

/** Where and how patiently the server asks DNS. */
export interface DnsResolverOptions {
  /** `host` or `host:port` (`[v6]:port`); empty uses the system's resolvers. */
  readonly servers: ReadonlyArray<string>
  /** Limit of one query attempt. */
  readonly timeout: Duration.Input
  /** Attempts per query before it counts as timed out. */
  readonly tries: number
}

// "No such name" and "no such record" are answers (no proof), not failed lookups.
const noRecords = new Set(["ENODATA", "ENOTFOUND"])

const reasonOf = (code: string): DnsFailureReason => {
  switch (code) {
    case "ETIMEOUT":
      return "timeout"
    case "ESERVFAIL":
      return "servfail"
    case "EREFUSED":
      return "refused"
    case "ECONNREFUSED":
      return "unreachable"
    default:
      return "error"
  }
}

const codeOf = (error: unknown): string =>
  Predicate.hasProperty(error, "code") && typeof error.code === "string" ? error.code : "EUNKNOWN"

// The answer, an empty answer for NXDOMAIN / NODATA, or why no answer came.
const query = <A>(name: string, run: () => Promise<A>, empty: A): Effect.Effect<A, DnsLookupFailed> =>
  Effect.tryPromise({ try: run, catch: codeOf }).pipe(
    Effect.catch((code) =>
      noRecords.has(code)
        ? Effect.succeed(empty)
        : Effect.fail(new DnsLookupFailed({ reason: reasonOf(code), detail: `${code} looking up ${name}` }))
    )
  )

const bareName = (name: string) => name.toLowerCase().replace(/\.$/, "")

/** The `DnsResolver` port on `node:dns` (c-ares): its own resolver, so the servers and timeouts are the configured ones. */
export const NodeDnsResolver = {
  layerWith: (options: DnsResolverOptions) =>
    Layer.effect(
      DnsResolver,
      Effect.sync(() => {
        const resolver = new Resolver({ timeout: Math.max(1, Duration.toMillis(Duration.fromInputUnsafe(options.timeout))), tries: Math.max(1, options.tries) })
        if (options.servers.length > 0) resolver.setServers([...options.servers])
        return DnsResolver.of({
          // A TXT record is a list of strings of at most 255 bytes each; a long value is split, so join them back.
          resolveTxt: (name) => query(name, () => resolver.resolveTxt(name), []).pipe(Effect.map((txt) => txt.map((chunks) => chunks.join("")))),
          resolveCname: (name) =>
            query(name, () => resolver.resolveCname(name), []).pipe(Effect.map((targets) => Option.map(Option.fromNullishOr(targets[0]), bareName)))
        })
      })
    )
}
