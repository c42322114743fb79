import { PortsMemory } from "@atrium/domain/testing"
import { Layer, Redacted } from "effect"
import type { Ports } from "../src/index.ts"
import { EmbeddedPostgresTemp, layerTestPorts, PostgresTestSchema } from "../src/testing.ts"
import { domainContract } from "./domain-contract.ts"

const databaseUrl = process.env.DATABASE_URL

// The same contract on the in-memory twin, the embedded server (a fresh one in a temporary folder), and a real server
// when DATABASE_URL names one.
const targets: ReadonlyArray<{ readonly label: string; readonly layer: Layer.Layer<Ports, unknown> }> = [
  { label: "memory", layer: PortsMemory },
  { label: "embedded PostgreSQL", layer: layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 8 })) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 })) }])
]

for (const target of targets) domainContract(target.label, target.layer)
