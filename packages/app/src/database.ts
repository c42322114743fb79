import { layerEmbedded, layerUrl } from "@atrium/adapters-pg"
import { Duration } from "effect"
import type { DatabaseTarget } from "./app-config.ts"

/**
 * The Postgres ports (and migrated schema) for the configured target: the embedded PostgreSQL server by default,
 * `DATABASE_URL` when set. A call waits `timeout` for its answer; the server cancels a statement at twice that, so
 * the client's bound (an answer of 503) comes first and a statement the client gave up on does not run on for long.
 */
export const databaseLayer = (target: DatabaseTarget, timeout: Duration.Duration) => {
  const bounds = { queryTimeout: timeout, statementTimeout: Duration.times(timeout, 2) }
  return target._tag === "Embedded" ? layerEmbedded({ dataDir: target.dataDir, ...bounds }) : layerUrl(target.url, bounds)
}
