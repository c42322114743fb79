import { type Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import { layerEmbedded, layerPorts, type Ports } from "../src/index.ts"
import { PostgresTestSchema } from "../src/testing.ts"
import { repositoryContract } from "./repository-contract.ts"

interface Target {
  readonly label: string
  readonly layer: Layer.Layer<Ports | SqlClient, unknown>
}

const databaseUrl = process.env.DATABASE_URL

// PGlite always; a real server too when DATABASE_URL names one (CI does), each run in a schema of its own.
const targets: ReadonlyArray<Target> = [
  { label: "embedded PGlite", layer: layerEmbedded() },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerPorts(PostgresTestSchema(Redacted.make(databaseUrl))) }])
]

for (const target of targets) repositoryContract(target.label, target.layer)
