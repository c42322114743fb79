import type { LookupAddress } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import type { Destination, ResolvedAddress } from "./destination.ts"

/** Keep-alive connections to checked destinations, reused only within a short window (about one worker pass). */
export interface PinnedConnections {
  /** The agent for attempts to exactly this checked destination (scheme, host, port and every checked address). */
  readonly agentFor: (destination: Destination) => http.Agent
  /** Closes every connection (shutdown). */
  readonly close: () => void
}

interface Window {
  readonly agent: http.Agent
  readonly openedAt: number
}

/**
 * Connections for the transport. An agent serves one destination *as checked*: the key holds every address the SSRF
 * guard passed, so a host that resolves elsewhere gets a new agent and never an old socket. Each agent takes new
 * attempts for `windowMillis`, then is retired; its idle sockets close after the same time. The guard still runs before
 * every attempt; reuse only saves the connect (and TLS handshake) to an address already checked moments ago.
 */
export const makePinnedConnections = (windowMillis: number, now: () => number = () => performance.now()): PinnedConnections => {
  const windows = new Map<string, Window>()
  const keyOf = (destination: Destination) =>
    [destination.secure ? "https" : "http", destination.hostname, destination.port, ...destination.addresses.map((a) => a.address).sort()].join("|")
  // A retired agent takes nothing new; its attempts in flight finish on it and its idle sockets time out.
  const retireExpired = (at: number) => {
    for (const [key, window] of windows) if (at - window.openedAt >= windowMillis) windows.delete(key)
  }

  return {
    agentFor: (destination) => {
      // No window: a connection per attempt, closed after its answer.
      if (windowMillis <= 0) return destination.secure ? new https.Agent() : new http.Agent()
      const at = now()
      retireExpired(at)
      const key = keyOf(destination)
      const current = windows.get(key)
      if (current !== undefined) return current.agent
      const options = { keepAlive: true, timeout: windowMillis, scheduling: "lifo" as const }
      const agent = destination.secure ? new https.Agent(options) : new http.Agent(options)
      windows.set(key, { agent, openedAt: at })
      return agent
    },
    close: () => {
      for (const window of windows.values()) window.agent.destroy()
      windows.clear()
    }
  }
}

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
