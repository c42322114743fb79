import { Option, Result } from "effect"
import { familyBits, type IpAddress, parseIpAddress } from "./ip-address.ts"

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
