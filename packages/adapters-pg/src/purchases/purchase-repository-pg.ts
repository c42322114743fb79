import { type AppAccountToken, AppAccountToken as AccountTokenSchema, Purchase, type PurchaseId, PurchaseRepository, type PageRequest, type Store, UserId, type WorkspaceId, WorkspaceId as WorkspaceIdSchema } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { PurchaseRow } from "./purchase-rows.ts"

const columns = `id, workspace_id, user_id, store, environment, product_id, kind, store_ref, sealed_token, status, auto_renew, expires_at,
  latest_transaction_id, last_event_at, last_verified_at, acknowledged_at, ack_attempts, next_check_at, created_at, updated_at`

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(PurchaseRow))
const toPurchases = (rows: unknown) => decodeRows(rows).pipe(Effect.map((decoded) => decoded.map((row) => new Purchase(row))))
const LinkRow = Schema.Struct({ token: AccountTokenSchema, workspace_id: WorkspaceIdSchema, user_id: UserId })
const decodeLinks = Schema.decodeUnknownEffect(Schema.Array(LinkRow))
const time = DateTime.toDateUtc
const optionalTime = (value: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(value, DateTime.toDateUtc))

/** Postgres purchases: unique per (store, store_ref), row-locked while a sync or notification applies to them. */
export const PurchaseRepositoryPg = Layer.effect(
  PurchaseRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const values = (p: Purchase) => sql`
      ${p.id}, ${p.workspaceId}, ${p.userId}, ${p.store}, ${p.environment}, ${p.productId}, ${p.kind}, ${p.storeRef},
      ${Option.getOrNull(p.sealedToken)}, ${p.status}, ${p.autoRenew}, ${optionalTime(p.expiresAt)}, ${p.latestTransactionId},
      ${time(p.lastEventAt)}, ${optionalTime(p.lastVerifiedAt)}, ${optionalTime(p.acknowledgedAt)}, ${p.ackAttempts},
      ${optionalTime(p.nextCheckAt)}, ${time(p.createdAt)}, ${time(p.updatedAt)}`

    // Two statements: when the insert waited on a concurrent insert of the same purchase, only a new statement's
    // snapshot sees that row; `FOR UPDATE` then holds it until this transaction ends, so racing appliers take turns.
    const lockOrInsert = Effect.fn("PurchaseRepository.lockOrInsert")(function*(candidate: Purchase) {
      const inserted = yield* sql`
        INSERT INTO purchases (${sql.literal(columns)}) VALUES (${values(candidate)})
        ON CONFLICT (store, store_ref) DO NOTHING
        RETURNING ${sql.literal(columns)}
      `.pipe(Effect.flatMap(toPurchases), orUnavailable)
      const [created] = inserted
      if (created !== undefined) return { purchase: created, inserted: true }
      const [existing] = yield* sql`
        SELECT ${sql.literal(columns)} FROM purchases WHERE store = ${candidate.store} AND store_ref = ${candidate.storeRef} FOR UPDATE
      `.pipe(Effect.flatMap(toPurchases), orUnavailable)
      if (existing === undefined) return yield* Effect.die(new Error("purchase vanished between insert and lock"))
      return { purchase: existing, inserted: false }
    })

    const save = Effect.fn("PurchaseRepository.save")(function*(p: Purchase) {
      yield* sql`
        UPDATE purchases SET
          environment = ${p.environment}, product_id = ${p.productId}, sealed_token = ${Option.getOrNull(p.sealedToken)}, status = ${p.status},
          auto_renew = ${p.autoRenew}, expires_at = ${optionalTime(p.expiresAt)}, latest_transaction_id = ${p.latestTransactionId},
          last_event_at = ${time(p.lastEventAt)}, last_verified_at = ${optionalTime(p.lastVerifiedAt)},
          acknowledged_at = ${optionalTime(p.acknowledgedAt)}, ack_attempts = ${p.ackAttempts},
          next_check_at = ${optionalTime(p.nextCheckAt)}, updated_at = ${time(p.updatedAt)}
        WHERE id = ${p.id}
      `.pipe(orUnavailable)
    })

    const findById = Effect.fn("PurchaseRepository.findById")(function*(workspaceId: WorkspaceId, id: PurchaseId) {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM purchases WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
        Effect.flatMap(toPurchases),
        orUnavailable
      )
      return Option.fromNullishOr(rows[0])
    })

    const findByStoreRef = Effect.fn("PurchaseRepository.findByStoreRef")(function*(store: Store, storeRef: string) {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM purchases WHERE store = ${store} AND store_ref = ${storeRef}`.pipe(
        Effect.flatMap(toPurchases),
        orUnavailable
      )
      return Option.fromNullishOr(rows[0])
    })

    const list = Effect.fn("PurchaseRepository.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const rows = yield* sql`
        SELECT ${sql.literal(columns)} FROM purchases
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id DESC LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(toPurchases), orUnavailable)
      return toPage(rows, page)
    })

    const listAll = Effect.fn("PurchaseRepository.listAll")(function*(workspaceId: WorkspaceId) {
      return yield* sql`SELECT ${sql.literal(columns)} FROM purchases WHERE workspace_id = ${workspaceId} ORDER BY created_at, id`.pipe(
        Effect.flatMap(toPurchases),
        orUnavailable
      )
    })

    // One statement picks, locks and leases the due rows; SKIP LOCKED lets concurrent reconcilers pass each other.
    const claimDue = Effect.fn("PurchaseRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id, next_check_at AS due_at FROM purchases
          WHERE next_check_at <= ${time(now)}
          ORDER BY next_check_at, id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        ), leased AS (
          UPDATE purchases p SET next_check_at = ${time(leaseUntil)} FROM due WHERE p.id = due.id
          RETURNING p.id, due.due_at
        )
        SELECT ${sql.literal(columns.replace("next_check_at", "leased.due_at AS next_check_at").replace(/\bid,/, "purchases.id,"))}
        FROM leased JOIN purchases USING (id) ORDER BY leased.due_at, id
      `.pipe(Effect.flatMap(toPurchases), orUnavailable)
    })

    const accountLink = Effect.fn("PurchaseRepository.accountLink")(function*(workspaceId: WorkspaceId, userId: UserId, candidate: AppAccountToken) {
      yield* sql`
        INSERT INTO purchase_account_links (token, workspace_id, user_id, created_at)
        VALUES (${candidate}, ${workspaceId}, ${userId}, now())
        ON CONFLICT (workspace_id, user_id) DO NOTHING
      `.pipe(orUnavailable)
      const [link] = yield* sql`SELECT token, workspace_id, user_id FROM purchase_account_links WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`
        .pipe(Effect.flatMap(decodeLinks), orUnavailable)
      if (link === undefined) return yield* Effect.die(new Error("account link vanished"))
      return link.token
    })

    const findAccountLink = Effect.fn("PurchaseRepository.findAccountLink")(function*(token: string) {
      const [link] = yield* sql`SELECT token, workspace_id, user_id FROM purchase_account_links WHERE token = ${token}`.pipe(
        Effect.flatMap(decodeLinks),
        orUnavailable
      )
      return Option.map(Option.fromNullishOr(link), (row) => ({ token: row.token, workspaceId: row.workspace_id, userId: row.user_id }))
    })

    const reserveSyncKey = Effect.fn("PurchaseRepository.reserveSyncKey")(
      function*(workspaceId: WorkspaceId, key: string, requestHash: string, now: DateTime.Utc) {
        const expiredAt = time(DateTime.subtract(now, { hours: 24 }))
        const reserved = yield* sql<{ key: string }>`
          INSERT INTO purchase_sync_keys (workspace_id, key, request_hash, created_at)
          VALUES (${workspaceId}, ${key}, ${requestHash}, ${time(now)})
          ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
          WHERE purchase_sync_keys.created_at <= ${expiredAt}
          RETURNING key
        `.pipe(orUnavailable)
        if (reserved.length === 1) return Option.none<string>()
        const [existing] = yield* sql<{ request_hash: string }>`
          SELECT request_hash FROM purchase_sync_keys WHERE workspace_id = ${workspaceId} AND key = ${key}
        `.pipe(orUnavailable)
        return Option.map(Option.fromNullishOr(existing), (row) => row.request_hash)
      }
    )

    return PurchaseRepository.of({ lockOrInsert, save, findById, findByStoreRef, list, listAll, claimDue, accountLink, findAccountLink, reserveSyncKey })
  })
)
