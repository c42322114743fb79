import { isIPv4, isIPv6 } from "node:net"
import { Option, Result } from "effect"

/** An IP address as its family and numeric value (32 bits for IPv4, 128 for IPv6). */
export interface IpAddress {
  readonly family: 4 | 6
  readonly value: bigint
}

/** Bit width of an address family. */
export const familyBits = (family: 4 | 6): bigint => family === 4 ? 32n : 128n

// Strict dotted-decimal: leading zeros are refused because some parsers read them as octal.
const octet = /^(0|[1-9]\d{0,2})$/

const parseIpv4Value = (text: string): Option.Option<bigint> => {
  const parts = text.split(".")
  if (parts.length !== 4) return Option.none()
  let value = 0n
  for (const part of parts) {
    if (!octet.test(part)) return Option.none()
    const n = Number(part)
    if (n > 255) return Option.none()
    value = (value << 8n) | BigInt(n)
  }
  return Option.some(value)
}

const parseGroups = (text: string): Option.Option<ReadonlyArray<bigint>> => {
  if (text === "") return Option.some([])
  const groups: Array<bigint> = []
  for (const group of text.split(":")) {
    if (group.includes(".")) {
      // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
      const v4 = parseIpv4Value(group)
      if (Option.isNone(v4)) return Option.none()
      groups.push(v4.value >> 16n, v4.value & 0xffffn)
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return Option.none()
      groups.push(BigInt(`0x${group}`))
    }
  }
  return Option.some(groups)
}

const parseIpv6Value = (text: string): Option.Option<bigint> => {
  const halves = text.split("::")
  if (halves.length > 2) return Option.none()
  const head = parseGroups(halves[0] ?? "")
  const tail = parseGroups(halves[1] ?? "")
  if (Option.isNone(head) || Option.isNone(tail)) return Option.none()
  const missing = 8 - head.value.length - tail.value.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return Option.none()
  const groups = [...head.value, ...Array.from({ length: missing }, () => 0n), ...tail.value]
  return Option.some(groups.reduce((acc, group) => (acc << 16n) | group, 0n))
}

/** Parses an IPv4 or IPv6 address (brackets and an IPv6 zone index are tolerated and dropped). */
export const parseIpAddress = (text: string): Option.Option<IpAddress> => {
  const unbracketed = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const address = unbracketed.split("%")[0] ?? ""
  if (isIPv4(address)) return Option.map(parseIpv4Value(address), (value) => ({ family: 4, value }))
  if (isIPv6(address)) return Option.map(parseIpv6Value(address), (value) => ({ family: 6, value }))
  return Option.none()
}

/** Formats an IPv4 value as dotted decimal. */
export const formatIpv4 = (value: bigint): string =>
  [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".")

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), which the OS connects to over IPv4. */
export const unmapIpv4 = (address: IpAddress): Option.Option<IpAddress> =>
  address.family === 6 && address.value >> 32n === 0xffffn
    ? Option.some({ family: 4, value: address.value & 0xffffffffn })
    : Option.none()

/** A network: an address family, its base address and a prefix length. */
export interface Cidr {
  readonly family: 4 | 6
  readonly base: bigint
  readonly prefix: number
  /** The text it was parsed from, for messages. */
  readonly text: string
}

/** Parses `a.b.c.d/n` or `x:y::/n`; a bare address means that one host. Fails with a human-readable reason. */
export const parseCidr = (text: string): Result.Result<Cidr, string> => {
  const [addressText = "", prefixText, ...rest] = text.trim().split("/")
  if (rest.length > 0) return Result.fail(`"${text}" has more than one "/"`)
  const address = parseIpAddress(addressText)
  if (Option.isNone(address)) return Result.fail(`"${addressText}" is not an IP address`)
  const bits = familyBits(address.value.family)
  if (prefixText !== undefined && !/^(0|[1-9]\d{0,2})$/.test(prefixText)) {
    return Result.fail(`"${text}" has an invalid prefix length`)
  }
  const prefix = prefixText === undefined ? Number(bits) : Number(prefixText)
  if (prefix > Number(bits)) return Result.fail(`"${text}" has a prefix longer than ${bits} bits`)
  const hostBits = bits - BigInt(prefix)
  // Host bits set usually means a typo (10.0.0.5/8 meant as one host would open a whole /8): refuse, don't guess.
  if ((address.value.value & ((1n << hostBits) - 1n)) !== 0n) {
    return Result.fail(`"${text}" has host bits set after the prefix`)
  }
  return Result.succeed({ family: address.value.family, base: address.value.value, prefix, text: text.trim() })
}

/** Parses a CIDR literal of the guard's own tables; a typo fails closed as the whole address space of its family. */
export const cidr = (text: string): Cidr =>
  Result.getOrElse(parseCidr(text), () => ({ family: text.includes(":") ? 6 : 4, base: 0n, prefix: 0, text }))

/** Whether the network contains the address (families must match). */
export const cidrContains = (network: Cidr, address: IpAddress): boolean => {
  if (network.family !== address.family) return false
  const hostBits = familyBits(network.family) - BigInt(network.prefix)
  return address.value >> hostBits === network.base >> hostBits
}
