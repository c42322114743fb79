import { BillingRepositoryMemory, MemoryStore, NotificationInboxMemory, PurchaseRepositoryMemory, TransactorMemory, WorkspaceRepositoryMemory } from "@atrium/domain/testing"
import { Layer, Redacted } from "effect"
import { EmbeddedPostgresTemp, layerTestPorts, PostgresTestSchema } from "../src/testing.ts"
import { purchaseContract } from "./purchase-contract.ts"

const databaseUrl = process.env.DATABASE_URL

purchaseContract(
  "memory",
  Layer.mergeAll(PurchaseRepositoryMemory, NotificationInboxMemory, BillingRepositoryMemory, WorkspaceRepositoryMemory, TransactorMemory).pipe(
    Layer.provideMerge(MemoryStore.layer)
  )
)
purchaseContract("embedded PostgreSQL", layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 8 })))
if (databaseUrl !== undefined && databaseUrl !== "") {
  purchaseContract("Postgres at DATABASE_URL", layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 })))
}
