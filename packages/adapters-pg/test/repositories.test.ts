import { Unavailable } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { PortsMemory } from "@atrium/domain/testing"
import { Layer } from "effect"
import { layerEmbedded, layerPorts, type Ports, PostgresUrl, runMigrations } from "../src/index.ts"
import { orUnavailable } from "../src/shared/sql-errors.ts"
import { PostgresTestSchema } from "../src/testing.ts"
import { aiContract } from "./ai-contract.ts"
import { aiDomainContract } from "./ai-domain-contract.ts"
import { identityContract } from "./identity-contract.ts"
import { identityDomainContract } from "./identity-domain-contract.ts"
import { repositoryContract } from "./repository-contract.ts"
import { StorageProbe } from "./storage-probe.ts"
import { webhookContract } from "./webhook-contract.ts"

interface Target {
  readonly label: string
  readonly layer: Layer.Layer<Ports | StorageProbe, unknown>
}

// A database target: its ports, and a probe reading its tables with SQL.
const database = <E>(ports: Layer.Layer<Ports | SqlClient.SqlClient, E>): Layer.Layer<Ports | StorageProbe | SqlClient.SqlClient, E> =>
  StorageProbe.layerSql.pipe(Layer.provideMerge(ports))

const databaseUrl = process.env.DATABASE_URL

// Every implementation of the ports runs the same suites: the in-memory layer, PGlite, and a real server when
// DATABASE_URL names one (CI does), each run in a schema of its own.
const targets: ReadonlyArray<Target> = [
  { label: "the in-memory layer", layer: StorageProbe.layerMemory.pipe(Layer.provideMerge(PortsMemory)) },
  { label: "embedded PGlite", layer: database(layerEmbedded()) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    // Eight connections, so concurrent claims really run side by side.
    : [{ label: "Postgres at DATABASE_URL", layer: database(layerPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 }))) }])
]

for (const target of targets) {
  repositoryContract(target.label, target.layer)
  webhookContract(target.label, target.layer)
  aiContract(target.label, target.layer)
  aiDomainContract(target.label, target.layer)
  identityContract(target.label, target.layer)
  identityDomainContract(target.label, target.layer)
}

describe("migrations on embedded PGlite", () => {
  it.effect("are idempotent: a second run applies nothing", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* runMigrations, [])
      assert.deepStrictEqual(yield* runMigrations, [])
    }).pipe(Effect.provide(layerEmbedded())), { timeout: 60_000 })
})

// The server enforces `statement_timeout`; PGlite runs statements to the end, so only a real server can show it.
if (databaseUrl !== undefined && databaseUrl !== "") {
  const url = Redacted.make(databaseUrl)
  describe("a statement that runs too long on Postgres at DATABASE_URL", () => {
    it.live("is cancelled by the server and reported as Unavailable", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const started = Date.now()
        const error = yield* sql`SELECT pg_sleep(5)`.pipe(orUnavailable, Effect.flip, Effect.timeout("4 seconds"))
        assert.instanceOf(error, Unavailable)
        assert.isBelow(Date.now() - started, 4000)
        // The connection survives the cancellation and answers the next statement.
        assert.deepStrictEqual(yield* sql`SELECT 1 AS one`, [{ one: 1 }])
      }).pipe(Effect.provide(PostgresUrl(url, { maxConnections: 1, statementTimeout: "300 millis" }))))

    it.live("runs every connection with the default 10 second limit", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* sql`SHOW statement_timeout`, [{ statement_timeout: "10s" }])
      }).pipe(Effect.provide(PostgresUrl(url, { maxConnections: 1 }))))
  })
}
