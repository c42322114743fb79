import type { SecretBox, SecretHasher } from "@atrium/domain"
import { Duration, Effect, Layer } from "effect"
import { map as mapValues } from "effect/Record"
import * as Migrator from "effect/sql/Migrator"
import { SqlClient } from "effect/sql/SqlClient"
import { StatementBudget } from "./answering-pg-client.ts"
import initial from "./migrations/0001_initial.ts"
import webhooks from "./migrations/0002_webhooks.ts"
import aiTasks from "./migrations/0003_ai_tasks.ts"
import identity from "./migrations/0004_identity.ts"
import counters64Bit from "./migrations/0005_counters_64_bit.ts"
import purchases from "./migrations/0007_purchases.ts"
import schedules from "./migrations/0008_schedules.ts"
import domains from "./migrations/0009_domains.ts"
import feedbackPush from "./migrations/0010_feedback_push.ts"
import mail from "./migrations/0011_mail.ts"
import hardening from "./migrations/0012_hardening.ts"
import sealedPushTokens from "./migrations/0013_sealed_push_tokens.ts"
import mailIdentity from "./migrations/0014_mail_identity.ts"
import requestLogs from "./migrations/0015_request_logs.ts"
import scheduleRunMissed from "./migrations/0016_schedule_run_missed.ts"
import requestLogsLighterIndexes from "./migrations/0017_request_logs_lighter_indexes.ts"
import requestLogBatches from "./migrations/0018_request_log_batches.ts"

/** What a data step may use besides the database: the server's secret box and keyed digest, to seal what it moves. */
export type MigrationServices = SecretBox | SecretHasher

/** Every schema migration, keyed `<id>_<name>`; append new ones, never edit applied ones. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient | MigrationServices>> = {
  "0001_initial": initial,
  "0002_webhooks": webhooks,
  "0003_ai_tasks": aiTasks,
  "0004_identity": identity,
  "0005_counters_64_bit": counters64Bit,
  "0007_purchases": purchases,
  "0008_schedules": schedules,
  "0009_domains": domains,
  "0010_feedback_push": feedbackPush,
  "0011_mail": mail,
  "0012_hardening": hardening,
  "0013_sealed_push_tokens": sealedPushTokens,
  "0014_mail_identity": mailIdentity,
  "0015_request_logs": requestLogs,
  "0016_schedule_run_missed": scheduleRunMissed,
  "0017_request_logs_lighter_indexes": requestLogsLighterIndexes,
  "0018_request_log_batches": requestLogBatches
}

// The generic migrator needs only a `SqlClient`: no `pg_dump`, file system or child processes.
const run = Migrator.make({})

/** How long one migration statement may run: rewriting a large table takes far longer than a request's query may. */
export const migrationStatementBudget = Duration.minutes(30)

// Raises `statement_timeout` for the rest of the migrator's transaction (every pending migration runs in one).
const raiseStatementTimeout = Effect.flatMap(SqlClient, (sql) =>
  sql`SELECT set_config('statement_timeout', ${`${Duration.toMillis(migrationStatementBudget)}ms`}, true)`)

/**
 * Applies the pending migrations of `record` (keyed `<id>_<name>`), their statements given `migrationStatementBudget`
 * on the server (`statement_timeout`) and in the client, instead of the few seconds a request's statement gets. Data
 * steps get the server's secret box and digest.
 */
export const migrateWith = (record: Record<string, Effect.Effect<void, unknown, SqlClient | MigrationServices>>) =>
  Effect.context<MigrationServices>().pipe(
    Effect.flatMap((services) =>
      run({
        loader: Migrator.fromRecord(mapValues(record, (migration) => Effect.andThen(raiseStatementTimeout, Effect.provideContext(migration, services)))),
        table: "atrium_migrations"
      })
    ),
    Effect.provideService(StatementBudget, migrationStatementBudget)
  )

/** Applies pending migrations (none when up to date) and returns the ones it ran. Safe to run concurrently: Postgres locks the migrations table. */
export const runMigrations = migrateWith(migrations)

/** A layer that brings the schema up to date while it is built. */
export const Migrations = Layer.effectDiscard(runMigrations)
