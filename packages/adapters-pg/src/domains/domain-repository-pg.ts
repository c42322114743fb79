import { Conflict, type CustomDomain, type DomainId, DomainRepository, type Hostname, type PageRequest, type Unavailable, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { orUnavailable, sqlFailure } from "../shared/sql-errors.ts"
import { dateOf, domainColumns, DomainRow, fromRow } from "./domain-row.ts"

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(DomainRow))
const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

// Named in the migration, so a workspace adding a hostname twice is told apart from a duplicate id (a bug).
const hostnameConstraint = "custom_domains_workspace_hostname_key"

// The claim's RETURNING list: every column of the updated row.
const leasedColumns = domainColumns.split(", ").map((column) => `d.${column}`).join(", ")

/** Postgres custom domains: rows, the per-hostname lock that serialises takeovers, and the leased check queue. */
export const DomainRepositoryPg = Layer.effect(
  DomainRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const toDomains = (rows: ReadonlyArray<unknown>) => decodeRows(rows).pipe(Effect.map((decoded) => decoded.map(fromRow)))

    const observedTxt = (domain: CustomDomain) => Option.getOrNull(Option.map(domain.observed, (o) => [...o.txt]))
    const observedCname = (domain: CustomDomain) => Option.getOrNull(Option.flatMap(domain.observed, (o) => o.cname))
    const observedError = (domain: CustomDomain) => Option.getOrNull(Option.flatMap(domain.observed, (o) => o.error))
    const observedAt = (domain: CustomDomain) => dateOf(Option.map(domain.observed, (o) => o.checkedAt))

    const insert = Effect.fn("DomainRepository.insert")(function*(domain: CustomDomain) {
      yield* sql`
        INSERT INTO custom_domains (${sql.literal(domainColumns)})
        VALUES (
          ${domain.id}, ${domain.workspaceId}, ${domain.hostname}, ${domain.status}, ${domain.token},
          ${Option.getOrNull(domain.misconfiguredReason)}, ${observedTxt(domain)}::text[], ${observedCname(domain)}, ${observedError(domain)},
          ${observedAt(domain)}, ${dateOf(domain.verifiedAt)}, ${dateOf(domain.lastCheckedAt)}, ${DateTime.toDateUtc(domain.pendingSince)},
          ${dateOf(domain.proofMissingSince)}, ${domain.checks}, ${dateOf(domain.nextCheckAt)}, ${JSON.stringify(domain.createdBy)}::jsonb,
          ${DateTime.toDateUtc(domain.createdAt)}, ${DateTime.toDateUtc(domain.updatedAt)}
        )
      `.pipe(
        Effect.catch((error: SqlError): Effect.Effect<never, Conflict | Unavailable> =>
          error.reason._tag === "UniqueViolation" && error.reason.constraint === hostnameConstraint
            ? Effect.fail(new Conflict({ detail: "The workspace already has this hostname" }))
            : sqlFailure(error)
        )
      )
    })

    const findById = Effect.fn("DomainRepository.findById")(function*(workspaceId: WorkspaceId, id: DomainId) {
      const domains = yield* sql`
        SELECT ${sql.literal(domainColumns)} FROM custom_domains WHERE workspace_id = ${workspaceId} AND id = ${id}
      `.pipe(Effect.flatMap(toDomains), orUnavailable)
      return Option.fromNullishOr(domains[0])
    })

    const list = Effect.fn("DomainRepository.list")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const domains = yield* sql`
        SELECT ${sql.literal(domainColumns)} FROM custom_domains
        WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id DESC
        LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(toDomains), orUnavailable)
      return toPage(domains, page)
    })

    const count = Effect.fn("DomainRepository.count")(function*(workspaceId: WorkspaceId) {
      const [row] = yield* sql`SELECT count(*)::int AS count FROM custom_domains WHERE workspace_id = ${workspaceId}`.pipe(
        Effect.flatMap(decodeCount),
        orUnavailable
      )
      return row.count
    })

    // In id order, so two transactions locking the same hostname's rows never wait on each other crosswise.
    const lockHostname = Effect.fn("DomainRepository.lockHostname")(function*(hostname: Hostname) {
      return yield* sql`
        SELECT ${sql.literal(domainColumns)} FROM custom_domains WHERE hostname = ${hostname} ORDER BY id FOR UPDATE
      `.pipe(Effect.flatMap(toDomains), orUnavailable)
    })

    // Every mutable field; the id, workspace, hostname and creation never change.
    const update = Effect.fn("DomainRepository.update")(function*(domain: CustomDomain) {
      yield* sql`
        UPDATE custom_domains SET
          status = ${domain.status},
          token = ${domain.token},
          misconfigured_reason = ${Option.getOrNull(domain.misconfiguredReason)},
          observed_txt = ${observedTxt(domain)}::text[],
          observed_cname = ${observedCname(domain)},
          observed_error = ${observedError(domain)},
          observed_at = ${observedAt(domain)},
          verified_at = ${dateOf(domain.verifiedAt)},
          last_checked_at = ${dateOf(domain.lastCheckedAt)},
          pending_since = ${DateTime.toDateUtc(domain.pendingSince)},
          proof_missing_since = ${dateOf(domain.proofMissingSince)},
          checks = ${domain.checks},
          next_check_at = ${dateOf(domain.nextCheckAt)},
          updated_at = ${DateTime.toDateUtc(domain.updatedAt)}
        WHERE workspace_id = ${domain.workspaceId} AND id = ${domain.id}
      `.pipe(orUnavailable)
    })

    const remove = Effect.fn("DomainRepository.delete")(function*(workspaceId: WorkspaceId, id: DomainId) {
      const deleted = yield* sql`DELETE FROM custom_domains WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(orUnavailable)
      return deleted.length > 0
    })

    // One statement picks, locks and leases the due rows (SKIP LOCKED: concurrent claimers pass over each other's rows);
    // MATERIALIZED so the locking pick with its LIMIT runs exactly once.
    const claimDue = Effect.fn("DomainRepository.claimDue")(function*(now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) {
      const size = Math.max(0, Math.trunc(limit))
      if (size === 0) return []
      return yield* sql`
        WITH due AS MATERIALIZED (
          SELECT id, next_check_at AS due_at FROM custom_domains
          WHERE next_check_at IS NOT NULL AND next_check_at <= ${DateTime.toDateUtc(now)}
          ORDER BY next_check_at, id
          LIMIT ${size}
          FOR UPDATE SKIP LOCKED
        ), leased AS (
          UPDATE custom_domains d SET next_check_at = ${DateTime.toDateUtc(leaseUntil)}
          FROM due WHERE d.id = due.id
          RETURNING ${sql.literal(leasedColumns)}, due.due_at
        )
        SELECT ${sql.literal(domainColumns)} FROM leased ORDER BY due_at, id
      `.pipe(Effect.flatMap(toDomains), orUnavailable)
    })

    return DomainRepository.of({ insert, findById, list, count, lockHostname, update, delete: remove, claimDue })
  })
)
