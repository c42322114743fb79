import { Duration } from "effect"

/**
 * Values found within the last `ttl`, read without an effect: the hot-path front of an Effect `Cache` (which still
 * coalesces concurrent misses and refreshes). Times are the caller's `Clock` millis; a full map starts over.
 */
export interface RecentValues<K, V> {
  readonly get: (key: K, nowMillis: number) => V | undefined
  readonly set: (key: K, value: V, nowMillis: number) => void
  readonly delete: (key: K) => void
}

export const makeRecentValues = <K, V>(ttl: Duration.Duration, capacity: number): RecentValues<K, V> => {
  const ttlMillis = Duration.toMillis(ttl)
  const entries = new Map<K, { readonly value: V; readonly until: number }>()
  return {
    get: (key, nowMillis) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.until > nowMillis) return entry.value
      entries.delete(key)
      return undefined
    },
    set: (key, value, nowMillis) => {
      if (entries.size >= capacity) entries.clear()
      entries.set(key, { value, until: nowMillis + ttlMillis })
    },
    delete: (key) => {
      entries.delete(key)
    }
  }
}
