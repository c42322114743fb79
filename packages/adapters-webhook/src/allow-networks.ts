import { Effect, Option, Result, Schema } from "effect"
import { type Cidr, cidrContains, parseCidr } from "./cidr.ts"
import { type IpAddress, unmapIpv4 } from "./ip-address.ts"

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
