import type { UserId, WorkspaceId } from "@atrium/domain"
import { MemoryStore } from "@atrium/domain/testing"
import { Context, Effect, Layer, Ref, Schema } from "effect"
import { SqlClient } from "effect/sql"

/** Stores whose rows the contract suites count directly. */
export type ProbedStore = "users" | "workspaces" | "memberships" | "sessions" | "audit_entries" | "events" | "ai_tasks" | "account_tokens" | "password_reset_requests"

/**
 * What a contract suite checks below the ports: rows counted and everything stored read raw, so nothing a port caches
 * or returns can hide an extra row or a plaintext secret. One implementation per storage target.
 */
export class StorageProbe extends Context.Service<StorageProbe, {
  /** Rows in `store`, only `workspaceId`'s when given. */
  readonly count: (store: ProbedStore, workspaceId?: WorkspaceId) => Effect.Effect<number>
  /** Owner memberships of a workspace. */
  readonly owners: (workspaceId: WorkspaceId) => Effect.Effect<number>
  /** Everything stored about identity, audit and events, as text. */
  readonly dump: Effect.Effect<string>
  /** The stored password hash of a user. */
  readonly passwordHash: (userId: UserId) => Effect.Effect<string>
  /** Inside a transaction: the session that holds its locks, for `waitingFor`. */
  readonly session: Effect.Effect<number>
  /** How many other sessions now wait, directly or queued behind another, for a lock `session` holds (in memory: all). */
  readonly waitingFor: (session: number) => Effect.Effect<number>
}>()("@atrium/adapters-pg/test/StorageProbe") {
  /** Reads the tables with SQL. */
  static readonly layerSql = Layer.effect(
    StorageProbe,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))
      const decodeText = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ row: Schema.String })))
      const decodePid = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ pid: Schema.Int })]))
      const first = <E>(effect: Effect.Effect<readonly [{ readonly count: number }], E>) => effect.pipe(Effect.map(([row]) => row.count), Effect.orDie)
      const tables = ["users", "memberships", "sessions", "session_refresh_tokens", "invitations", "appearance_bundles", "audit_entries", "events"]
      return StorageProbe.of({
        count: (store, workspaceId) =>
          first(sql`
            SELECT count(*)::int AS count FROM ${sql(store)} ${workspaceId === undefined ? sql`` : sql`WHERE workspace_id = ${workspaceId}`}
          `.pipe(Effect.flatMap(decodeCount))),
        owners: (workspaceId) =>
          first(sql`SELECT count(*)::int AS count FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner'`.pipe(Effect.flatMap(decodeCount))),
        dump: Effect.forEach(tables, (table) => sql`SELECT row_to_json(t)::text AS row FROM ${sql(table)} t`.pipe(Effect.flatMap(decodeText))).pipe(
          Effect.map((dumps) => dumps.flat().map((r) => r.row).join("\n")),
          Effect.orDie
        ),
        passwordHash: (userId) =>
          sql`SELECT password_hash AS row FROM users WHERE id = ${userId}`.pipe(
            Effect.flatMap(decodeText),
            Effect.map(([row]) => row?.row ?? ""),
            Effect.orDie
          ),
        session: sql`SELECT pg_backend_pid() AS pid`.pipe(Effect.flatMap(decodePid), Effect.map(([row]) => row.pid), Effect.orDie),
        // pg_locks is read live (pg_stat_activity would be a snapshot held for the reading transaction). A session
        // queued for a row behind another waiter is blocked by that waiter: followed to the end of the queue.
        waitingFor: (session) =>
          first(sql`
            WITH RECURSIVE blocked AS MATERIALIZED (SELECT pid, pg_blocking_pids(pid) AS by FROM pg_locks WHERE NOT granted),
            waiting(pid) AS (SELECT pid FROM blocked WHERE ${session} = ANY(by) UNION SELECT b.pid FROM blocked b JOIN waiting w ON w.pid = ANY(b.by))
            SELECT count(*)::int AS count FROM waiting
          `.pipe(Effect.flatMap(decodeCount)))
      })
    })
  )

  /** Reads the in-memory state. */
  static readonly layerMemory = Layer.effect(
    StorageProbe,
    Effect.gen(function*() {
      const store = yield* MemoryStore
      const state = Ref.get(store.state)
      const records = (store: ProbedStore) =>
        Effect.map(state, (s): ReadonlyArray<{ readonly workspaceId?: WorkspaceId }> => {
          switch (store) {
            case "users":
              return Array.from(s.users.values(), () => ({}))
            case "workspaces":
              return Array.from(s.workspaces.values(), (w) => ({ workspaceId: w.id }))
            case "memberships":
              return Array.from(s.memberships.values())
            case "sessions":
              return Array.from(s.sessions.values(), (session) => ({ workspaceId: session.activeWorkspaceId }))
            case "audit_entries":
              return s.audit
            case "events":
              return s.events
            case "ai_tasks":
              return Array.from(s.aiTasks.values())
            case "account_tokens":
              return Array.from(s.accountTokens.values(), () => ({}))
            case "password_reset_requests":
              return Array.from(s.resetRequests.values(), () => ({}))
          }
        })
      return StorageProbe.of({
        count: (store, workspaceId) =>
          Effect.map(records(store), (all) => all.filter((r) => workspaceId === undefined || r.workspaceId === workspaceId).length),
        owners: (workspaceId) =>
          Effect.map(state, (s) => Array.from(s.memberships.values()).filter((m) => m.workspaceId === workspaceId && m.role === "owner").length),
        dump: Effect.map(state, (s) => JSON.stringify(s, (_key, value: unknown) => value instanceof Map ? Array.from(value.entries()) : value)),
        passwordHash: (userId) => Effect.map(state, (s) => s.users.get(userId)?.passwordHash ?? ""),
        // One transaction at a time: every other one begun meanwhile waits for it.
        session: Effect.succeed(0),
        waitingFor: () => Effect.succeed(Number.POSITIVE_INFINITY)
      })
    })
  )
}
