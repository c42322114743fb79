import { AccountTokenRepository, AiTaskRepository, DeliveryRepository, EventOutbox, MailRepository, NotificationInbox, PasswordResetRequest, PushMessageRepository, Transactor, Unavailable, UserRepository, WebhookEndpointRepository, WorkspaceRepository } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { PortsMemory } from "@atrium/domain/testing"
import { Latch, Layer } from "effect"
import { type Ports, PostgresUrl, type PostgresUrlOptions, runMigrations, WorkAnnouncements } from "../src/index.ts"
import { at, makeAiTask, makeDelivery, makeEndpoint, makeEvent, makePushMessage, makeUser, makeWorkspace, passwordHash, token } from "./fixtures.ts"
import { orUnavailable } from "../src/shared/sql-errors.ts"
import { EmbeddedPostgresTemp, layerTestPorts, PostgresTestSchema, TestMigrationServices } from "../src/testing.ts"
import { accountMailAuditContract } from "./account-mail-audit-contract.ts"
import { aiContract } from "./ai-contract.ts"
import { aiBatchContract, aiBatchWriteFailureContract } from "./ai-batch-contract.ts"
import { aiDomainContract } from "./ai-domain-contract.ts"
import { feedbackDomainContract } from "./feedback-domain-contract.ts"
import { identityContract } from "./identity-contract.ts"
import { identityDomainContract } from "./identity-domain-contract.ts"
import { mailContract, makeMessage } from "./mail-contract.ts"
import { makeNotification } from "./purchase-contract.ts"
import { purchaseDomainContract } from "./purchase-domain-contract.ts"
import { repositoryContract } from "./repository-contract.ts"
import { scheduleDomainContract, scheduleRepositoryContract } from "./schedule-contract.ts"
import { sessionEndingContract } from "./session-ending-contract.ts"
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

// Every implementation of the ports runs the same suites: the in-memory layer, the embedded server (a fresh one per
// contract, in a temporary folder), and a real server when DATABASE_URL names one (CI does), each run in a schema of its
// own. Eight connections, so concurrent claims really run side by side.
const targets: ReadonlyArray<Target> = [
  { label: "the in-memory layer", layer: StorageProbe.layerMemory.pipe(Layer.provideMerge(PortsMemory)) },
  { label: "embedded PostgreSQL", layer: database(layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 8 }))) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: database(layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 }))) }])
]

const sqlTargets = [
  { label: "embedded PostgreSQL", layer: layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 8 })) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 8 })) }])
]

for (const target of targets) {
  repositoryContract(target.label, target.layer)
  webhookContract(target.label, target.layer)
  aiContract(target.label, target.layer)
  aiDomainContract(target.label, target.layer)
  aiBatchContract(target.label, target.layer)
  identityContract(target.label, target.layer)
  identityDomainContract(target.label, target.layer)
  feedbackDomainContract(target.label, target.layer)
  accountMailAuditContract(target.label, target.layer)
  sessionEndingContract(target.label, target.layer)
}

// Contracts that read the database with SQL run on the two database targets.
for (const target of sqlTargets) {
  aiBatchWriteFailureContract(target.label, target.layer)
  scheduleRepositoryContract(target.label, target.layer)
  scheduleDomainContract(target.label, target.layer)
  mailContract(target.label, target.layer)
  purchaseDomainContract(target.label, target.layer)
}

// The in-memory twins keep the same repository rules, so tests over memory mean what they say about Postgres.
scheduleRepositoryContract("memory", PortsMemory)
mailContract("memory", PortsMemory)

describe("migrations on the embedded server", () => {
  it.live("are idempotent: a second run applies nothing", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* runMigrations, [])
      assert.deepStrictEqual(yield* runMigrations, [])
    }).pipe(Effect.provide(TestMigrationServices), Effect.provide(layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 2 })))), { timeout: 60_000 })
})

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

// Work announcements: an insert of due work wakes idle workers of every process when its transaction commits.
for (const target of [
  { label: "the embedded server", layer: layerTestPorts(EmbeddedPostgresTemp({ maxConnections: 4 })) },
  ...(databaseUrl === undefined || databaseUrl === "" ? [] : [{ label: "Postgres at DATABASE_URL", layer: layerTestPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 4 })) }])
]) {
  describe(`work announcements on ${target.label}`, () => {
    // Awaited for at most 5 seconds, so a missing announcement fails the test instead of hanging it. The listener opens
    // latches in one synchronous pass that resumes a waiter at its first: yielding once lets the pass end.
    const opened = (latch: Latch.Latch) =>
      latch.await.pipe(Effect.timeoutOption("5 seconds"), Effect.map(Option.isSome), Effect.tap(Effect.yieldNow))
    it.live("a committed insert of deliveries or a task opens the subscribers' latch; a rolled-back one does not", () =>
      Effect.gen(function*() {
        // Both queues on the process's one listener.
        const announcements = yield* WorkAnnouncements
        const deliveries = yield* announcements.subscribe("webhook_deliveries")
        const tasks = yield* announcements.subscribe("ai_tasks")
        const mail = yield* announcements.subscribe("mail_messages")
        // The listener announces itself once on (re)connect: wait for that, then start from closed.
        for (const latch of [deliveries, tasks, mail]) assert.isTrue(yield* opened(latch), "the listener announces itself")
        for (const latch of [deliveries, tasks, mail]) latch.closeUnsafe()
        const workspace = makeWorkspace()
        yield* (yield* WorkspaceRepository).insert(workspace)
        const tx = yield* Transactor
        yield* tx.withTransaction(Effect.andThen((yield* AiTaskRepository).insert(makeAiTask(workspace.id)), Effect.fail("rolled back"))).pipe(Effect.ignore)
        // Announcements reach the one listener in commit order: once a later commit's is heard, the rolled-back insert's
        // would have been too.
        assert.isTrue(yield* (yield* MailRepository).insert(makeMessage()))
        assert.isTrue(yield* opened(mail), "a committed mail message is announced")
        assert.isFalse(tasks.isOpen(), "a rolled-back insert announces nothing")
        yield* (yield* AiTaskRepository).insert(makeAiTask(workspace.id))
        assert.isTrue(yield* opened(tasks), "a committed task is announced")
        assert.isFalse(deliveries.isOpen(), "announcements are per queue")
        const event = makeEvent(workspace.id, at(1))
        yield* (yield* EventOutbox).append(event)
        const endpoint = makeEndpoint(workspace.id)
        yield* (yield* WebhookEndpointRepository).insert(endpoint)
        yield* (yield* DeliveryRepository).insertMany([makeDelivery(event, endpoint.id)])
        assert.isTrue(yield* opened(deliveries), "committed deliveries are announced")
        // One LISTEN connection serves them all: the other three of the pool's four hold transactions side by side.
        const sql = yield* SqlClient.SqlClient
        const inside = yield* Latch.make(false)
        let started = 0
        const holdTogether = sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT 1`
          if (++started === 3) yield* inside.open
          yield* inside.await
        }))
        const together = yield* Effect.all([holdTogether, holdTogether, holdTogether], { concurrency: "unbounded" }).pipe(Effect.timeoutOption("5 seconds"))
        assert.isTrue(together._tag === "Some", "three transactions run beside the listener")
      }).pipe(Effect.provide(WorkAnnouncements.layer), Effect.scoped, Effect.provide(target.layer)), { timeout: 60_000 })

    // Their workers poll only once a second when announced, so an insert that announced nothing would wait that long.
    it.live("a mail message, a password-reset request, a store notification and push messages are each announced on their queue", () =>
      Effect.gen(function*() {
        const announcements = yield* WorkAnnouncements
        const queues = ["mail_messages", "password_reset_requests", "store_notifications", "push_messages"]
        const latches = new Map<string, Latch.Latch>()
        for (const queue of queues) latches.set(queue, yield* announcements.subscribe(queue))
        for (const latch of latches.values()) assert.isTrue(yield* opened(latch), "the listener announces itself")
        const expectOnly = (queue: string) =>
          Effect.gen(function*() {
            const latch = latches.get(queue)
            assert.isDefined(latch)
            if (latch === undefined) return
            assert.isTrue(yield* opened(latch), `${queue} is announced`)
            for (const [other, otherLatch] of latches) if (other !== queue) assert.isFalse(otherLatch.isOpen(), `${other} is not`)
            latch.closeUnsafe()
          })
        for (const latch of latches.values()) latch.closeUnsafe()
        assert.isTrue(yield* (yield* MailRepository).insert(makeMessage()))
        yield* expectOnly("mail_messages")
        yield* (yield* AccountTokenRepository).requestReset(new PasswordResetRequest({ id: `prr_${token()}`, email: makeUser().email, requestedAt: at(0) }))
        yield* expectOnly("password_reset_requests")
        assert.isTrue(yield* (yield* NotificationInbox).insert(makeNotification(`announced-${token()}`)))
        yield* expectOnly("store_notifications")
        const user = makeUser()
        yield* (yield* UserRepository).insert(user, passwordHash())
        yield* (yield* PushMessageRepository).insertMany([makePushMessage(user.id)])
        yield* expectOnly("push_messages")
      }).pipe(Effect.provide(WorkAnnouncements.layer), Effect.scoped, Effect.provide(target.layer)), { timeout: 60_000 })
  })
}
