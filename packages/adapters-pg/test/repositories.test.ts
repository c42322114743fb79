import { Unavailable } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { layerPorts, type Ports, PostgresUrl, type PostgresUrlOptions } from "../src/index.ts"
import { orUnavailable } from "../src/sql-errors.ts"
import { EmbeddedPostgresTemp, PostgresTestSchema } from "../src/testing.ts"
import { aiContract } from "./ai-contract.ts"
import { aiDomainContract } from "./ai-domain-contract.ts"
import { identityContract } from "./identity-contract.ts"
import { identityDomainContract } from "./identity-domain-contract.ts"
import { mailContract } from "./mail-contract.ts"
import { PortsMemory } from "@atrium/domain/testing"
import { purchaseDomainContract } from "./purchase-domain-contract.ts"
import { repositoryContract } from "./repository-contract.ts"
import { scheduleDomainContract, scheduleRepositoryContract } from "./schedule-contract.ts"
import { webhookContract } from "./webhook-contract.ts"

interface Target {
  readonly label: string
  readonly layer: Layer.Layer<Ports | SqlClient.SqlClient, unknown>
}

const databaseUrl = process.env.DATABASE_URL

// The embedded server always (a fresh one per contract, in a temporary folder); a real server too when DATABASE_URL
// names one (CI does), each run in a schema of its own. Eight connections, so concurrent claims really run side by side.
const targets: ReadonlyArray<Target> = [
  { label: "embedded PostgreSQL", layer: layerPorts(EmbeddedPostgresTemp({ maxConnections: 8 })) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 })) }])
]

for (const target of targets) {
  repositoryContract(target.label, target.layer)
  webhookContract(target.label, target.layer)
  aiContract(target.label, target.layer)
  aiDomainContract(target.label, target.layer)
  identityContract(target.label, target.layer)
  identityDomainContract(target.label, target.layer)
  scheduleRepositoryContract(target.label, target.layer)
  scheduleDomainContract(target.label, target.layer)
  mailContract(target.label, target.layer)
  purchaseDomainContract(target.label, target.layer)
}

// The in-memory twins keep the same repository rules, so tests over memory mean what they say about Postgres.
scheduleRepositoryContract("memory", PortsMemory)
mailContract("memory", PortsMemory)

// The server enforces `statement_timeout`: shown on the embedded server, and on DATABASE_URL when set.
const statementTimeoutTargets: ReadonlyArray<{ readonly label: string; readonly client: (options: Omit<PostgresUrlOptions, "schema">) => Layer.Layer<SqlClient.SqlClient, unknown> }> = [
  { label: "the embedded server", client: (options) => EmbeddedPostgresTemp(options) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", client: (options: Omit<PostgresUrlOptions, "schema">) => PostgresUrl(Redacted.make(databaseUrl), options) }])
]

for (const { client, label } of statementTimeoutTargets) {
  describe(`a statement that runs too long on ${label}`, () => {
    it.live("is cancelled by the server and reported as Unavailable", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const started = Date.now()
        const error = yield* sql`SELECT pg_sleep(5)`.pipe(orUnavailable, Effect.flip, Effect.timeout("4 seconds"))
        assert.instanceOf(error, Unavailable)
        assert.isBelow(Date.now() - started, 4000)
        // The connection survives the cancellation and answers the next statement.
        assert.deepStrictEqual(yield* sql`SELECT 1 AS one`, [{ one: 1 }])
      }).pipe(Effect.provide(client({ maxConnections: 1, statementTimeout: "300 millis" }))), 30_000)

    it.live("runs every connection with the default 10 second limit", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* sql`SHOW statement_timeout`, [{ statement_timeout: "10s" }])
      }).pipe(Effect.provide(client({ maxConnections: 1 }))), 30_000)
  })
}
