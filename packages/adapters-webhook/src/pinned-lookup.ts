import type { LookupAddress } from "node:dns"
import type { LookupFunction } from "node:net"
import type { ResolvedAddress } from "./destination.ts"

const wantsFamily = (requested: number | "IPv4" | "IPv6" | undefined, family: 4 | 6): boolean =>
  requested === undefined || requested === 0 || requested === family || requested === `IPv${family}`

/**
 * A `lookup` for `http.request` that answers with the addresses the SSRF guard already checked, so the socket
 * connects to exactly those and no second DNS query can be rebound to an internal address.
 */
export const pinnedLookup = (addresses: ReadonlyArray<ResolvedAddress>): LookupFunction => (hostname, options, callback) => {
  const candidates: Array<LookupAddress> = addresses
    .filter((entry) => wantsFamily(options.family, entry.family))
    .map((entry) => ({ address: entry.address, family: entry.family }))
  const first = candidates[0]
  if (first === undefined) {
    callback(Object.assign(new Error(`no checked address for ${hostname}`), { code: "ENOTFOUND", hostname }), [])
  } else if (options.all === true) {
    callback(null, candidates)
  } else {
    callback(null, first.address, first.family)
  }
}
