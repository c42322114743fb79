import { PortsMemory } from "@atrium/domain/testing"
import { Layer, Redacted } from "effect"
import { layerEmbedded, layerPorts, type Ports } from "../src/index.ts"
import { PostgresTestSchema } from "../src/testing.ts"
import { domainContract } from "./domain-contract.ts"

const databaseUrl = process.env.DATABASE_URL

// The same contract on the in-memory twin, embedded Postgres, and a real server when DATABASE_URL names one.
const targets: ReadonlyArray<{ readonly label: string; readonly layer: Layer.Layer<Ports, unknown> }> = [
  { label: "memory", layer: PortsMemory },
  { label: "embedded Postgres", layer: layerEmbedded() },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 })) }])
]

for (const target of targets) domainContract(target.label, target.layer)
