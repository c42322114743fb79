import { Layer } from "effect"
import * as Migrator from "effect/sql/Migrator"
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

/** Every schema migration, keyed `<id>_<name>`; append new ones, never edit applied ones. */
export const migrations = {
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
  "0012_hardening": hardening
}

// The generic migrator needs only a `SqlClient`: no `pg_dump`, file system or child processes.
const run = Migrator.make({})

/** Applies pending migrations (none when up to date) and returns the ones it ran. Safe to run concurrently: Postgres locks the migrations table. */
export const runMigrations = run({ loader: Migrator.fromRecord(migrations), table: "atrium_migrations" })

/** A layer that brings the schema up to date while it is built. */
export const Migrations = Layer.effectDiscard(runMigrations)
