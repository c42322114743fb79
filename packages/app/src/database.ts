import { layerEmbedded, layerUrl } from "@atrium/adapters-pg"
import type { DatabaseTarget } from "./app-config.ts"

/** The Postgres ports (and migrated schema) for the configured target: the embedded PostgreSQL server by default, `DATABASE_URL` when set. */
export const databaseLayer = (target: DatabaseTarget) =>
  target._tag === "Embedded" ? layerEmbedded({ dataDir: target.dataDir }) : layerUrl(target.url)
