import { Effect, Option, Result, Schema } from "effect"
import { type Cidr, cidr, cidrContains, formatIpv4, type IpAddress, parseCidr, parseIpAddress, unmapIpv4 } from "./ip-networks.ts"

/** A configured allow-network is not a valid CIDR. */
export class InvalidAllowNetwork extends Schema.TaggedError<InvalidAllowNetwork>()("InvalidAllowNetwork", {
  network: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid webhook allow-network ${JSON.stringify(this.network)}: ${this.reason}`
  }
}

/** Networks the SSRF guard lets through although they are otherwise blocked (local development, tests). */
export interface AllowList {
  readonly networks: ReadonlyArray<Cidr>
}

/** An allow-list that allows nothing beyond public addresses. */
export const emptyAllowList: AllowList = { networks: [] }

/** Validates CIDR strings into an allow-list. */
export const makeAllowList = (networks: ReadonlyArray<string>): Effect.Effect<AllowList, InvalidAllowNetwork> =>
  Effect.forEach(networks, (network) =>
    Result.match(parseCidr(network), {
      onFailure: (reason) => Effect.fail(new InvalidAllowNetwork({ network, reason })),
      onSuccess: Effect.succeed
    })).pipe(Effect.map((parsed) => ({ networks: parsed })))

/** Whether an allow-listed network contains the address (an IPv4-mapped IPv6 address matches IPv4 networks). */
export const isAllowListed = (allowList: AllowList, address: IpAddress): boolean => {
  const mapped = unmapIpv4(address)
  return allowList.networks.some((network) =>
    cidrContains(network, address) || (Option.isSome(mapped) && cidrContains(network, mapped.value))
  )
}

/** Why the SSRF guard refuses an address. */
export type BlockCategory =
  | "unspecified"
  | "this_network"
  | "loopback"
  | "private"
  | "cgnat"
  | "link_local"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "documentation"
  | "benchmark"
  | "unique_local"
  | "site_local"
  | "not_global_unicast"
  | "invalid"

/** A network the guard refuses, with why. */
export interface BlockedRange {
  readonly network: Cidr
  readonly category: BlockCategory
  readonly note: string
}

const range = (text: string, category: BlockCategory, note: string): BlockedRange => ({
  network: cidr(text),
  category,
  note
})

/** IPv4 networks that are never webhook receivers; the first match names the category, so specific entries come first. */
export const blockedIpv4Ranges: ReadonlyArray<BlockedRange> = [
  range("0.0.0.0/32", "unspecified", "unspecified address"),
  range("0.0.0.0/8", "this_network", "“this network”"),
  range("10.0.0.0/8", "private", "private network"),
  range("100.64.0.0/10", "cgnat", "carrier-grade NAT"),
  range("127.0.0.0/8", "loopback", "loopback"),
  range("169.254.169.254/32", "link_local", "cloud metadata service"),
  range("169.254.0.0/16", "link_local", "link-local"),
  range("172.16.0.0/12", "private", "private network"),
  range("192.0.0.0/24", "reserved", "IETF protocol assignments"),
  range("192.0.2.0/24", "documentation", "documentation (TEST-NET-1)"),
  range("192.88.99.0/24", "reserved", "6to4 relay anycast"),
  range("192.168.0.0/16", "private", "private network"),
  range("198.18.0.0/15", "benchmark", "benchmarking"),
  range("198.51.100.0/24", "documentation", "documentation (TEST-NET-2)"),
  range("203.0.113.0/24", "documentation", "documentation (TEST-NET-3)"),
  range("224.0.0.0/4", "multicast", "multicast"),
  range("255.255.255.255/32", "broadcast", "limited broadcast"),
  range("240.0.0.0/4", "reserved", "reserved for future use")
]

/** IPv6 networks that are never webhook receivers (the IPv4-embedding forms are judged by their IPv4 address). */
export const blockedIpv6Ranges: ReadonlyArray<BlockedRange> = [
  range("::/128", "unspecified", "unspecified address"),
  range("::1/128", "loopback", "loopback"),
  range("64:ff9b:1::/48", "reserved", "local-use NAT64"),
  range("100::/64", "reserved", "discard-only"),
  range("2001::/23", "reserved", "IETF protocol assignments (Teredo, ORCHID, benchmarking)"),
  range("2001:db8::/32", "documentation", "documentation"),
  range("3fff::/20", "documentation", "documentation"),
  range("fc00::/7", "unique_local", "unique local (ULA)"),
  range("fe80::/10", "link_local", "link-local"),
  range("fec0::/10", "site_local", "site-local (deprecated)"),
  range("ff00::/8", "multicast", "multicast")
]

/** Ways an IPv6 address carries an IPv4 address that the packet ends up at. */
interface Ipv4Embedding {
  readonly network: Cidr
  readonly name: string
  readonly extract: (value: bigint) => bigint
}

const low32 = (value: bigint): bigint => value & 0xffffffffn

const embeddings: ReadonlyArray<Ipv4Embedding> = [
  { network: cidr("::ffff:0:0/96"), name: "IPv4-mapped", extract: low32 },
  { network: cidr("::/96"), name: "IPv4-compatible", extract: low32 },
  { network: cidr("64:ff9b::/96"), name: "NAT64", extract: low32 },
  { network: cidr("2002::/16"), name: "6to4", extract: (value) => (value >> 80n) & 0xffffffffn }
]

const globalUnicast = cidr("2000::/3")

/** How the guard sees one address. */
export type AddressClass =
  | { readonly _tag: "Public" }
  | { readonly _tag: "Blocked"; readonly category: BlockCategory; readonly description: string }

const blocked = (category: BlockCategory, description: string): AddressClass => ({ _tag: "Blocked", category, description })

const firstMatch = (ranges: ReadonlyArray<BlockedRange>, address: IpAddress): Option.Option<BlockedRange> =>
  Option.fromNullishOr(ranges.find((entry) => cidrContains(entry.network, address)))

const describe = (entry: BlockedRange): string => `${entry.note} (${entry.network.text})`

const classifyIpv4 = (address: IpAddress): AddressClass =>
  Option.match(firstMatch(blockedIpv4Ranges, address), {
    onNone: () => ({ _tag: "Public" }),
    onSome: (entry) => blocked(entry.category, describe(entry))
  })

const classifyIpv6 = (address: IpAddress): AddressClass => {
  // :: and ::1 sit inside the IPv4-compatible range; they are IPv6's own unspecified and loopback addresses.
  const own = firstMatch(blockedIpv6Ranges.slice(0, 2), address)
  if (Option.isSome(own)) return blocked(own.value.category, describe(own.value))
  const embedding = embeddings.find((entry) => cidrContains(entry.network, address))
  if (embedding !== undefined) {
    const inner = embedding.extract(address.value)
    const verdict = classifyIpv4({ family: 4, value: inner })
    if (verdict._tag === "Blocked") {
      return blocked(verdict.category, `${embedding.name} form of ${formatIpv4(inner)}: ${verdict.description}`)
    }
    // IPv4-compatible addresses are deprecated (RFC 4291) and routed nowhere: no real receiver uses one.
    return embedding.name === "IPv4-compatible"
      ? blocked("reserved", `deprecated IPv4-compatible address (${embedding.network.text})`)
      : verdict
  }
  const entry = firstMatch(blockedIpv6Ranges, address)
  if (Option.isSome(entry)) return blocked(entry.value.category, describe(entry.value))
  // Only global unicast is proven routable on the public internet; everything else IANA reserved is refused.
  return cidrContains(globalUnicast, address)
    ? { _tag: "Public" }
    : blocked("not_global_unicast", `outside global unicast (${globalUnicast.text})`)
}

const classifyParsed = (parsed: Option.Option<IpAddress>): AddressClass =>
  Option.match(parsed, {
    onNone: () => blocked("invalid", "not an IP address"),
    onSome: (address) => address.family === 4 ? classifyIpv4(address) : classifyIpv6(address)
  })

/** Classifies an IP address as public or a blocked category; text that is not an IP address is blocked as invalid. */
export const classifyAddress = (text: string): AddressClass => classifyParsed(parseIpAddress(text))

/** The guard's verdict on one address, given the allow-list. */
export type AddressVerdict =
  | { readonly _tag: "Allowed"; readonly address: string; readonly allowListed: boolean }
  | { readonly _tag: "Blocked"; readonly address: string; readonly category: BlockCategory; readonly reason: string }

/** Allows public addresses and allow-listed networks; refuses everything else. */
export const checkAddress = (allowList: AllowList, text: string): AddressVerdict => {
  const parsed = parseIpAddress(text)
  const allowListed = Option.isSome(parsed) && isAllowListed(allowList, parsed.value)
  if (allowListed) return { _tag: "Allowed", address: text, allowListed }
  const verdict = classifyParsed(parsed)
  return verdict._tag === "Public"
    ? { _tag: "Allowed", address: text, allowListed }
    : { _tag: "Blocked", address: text, category: verdict.category, reason: `${text} is ${verdict.description}` }
}
