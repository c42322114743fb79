import type { Page, PageRequest, Unavailable, WorkspaceId } from "@atrium/domain"
import { type DateTime, Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Fragment } from "effect/sql/Statement"
import { afterCursor, fetchSize, toPage } from "./keyset-page.ts"
import { orUnavailable } from "./sql-errors.ts"

/** A table whose rows read back as one domain class: its name, the columns to select, its row schema and the class. */
export interface Table<S extends Schema.Top, A> {
  readonly name: string
  readonly columns: string
  readonly Row: S
  readonly Class: new(row: S["Type"]) => A
}

/** How a repository reads one table: every query's rows become domain values through the same row schema. */
export interface TableReads<A> {
  /** The driver's rows as domain values (a row that does not decode is a `SchemaError`, a defect under `orUnavailable`). */
  readonly decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<Array<A>, Schema.SchemaError>
  /** `SELECT <columns> FROM <table> WHERE <where>`: the first match, if any. */
  readonly findOne: (where: Fragment) => Effect.Effect<Option.Option<A>, Unavailable>
  /** The row `id` of the workspace: another workspace's id is not found, the same as an unknown one. */
  readonly findInWorkspace: (workspaceId: WorkspaceId, id: string) => Effect.Effect<Option.Option<A>, Unavailable>
  /** One keyset page of the workspace's rows, newest first (ties by `id`, as the in-memory adapters order them). */
  readonly newestInWorkspace: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<A>, Unavailable>
}

/** The reads of a table keyed by `id` whose rows carry their creation time (`created_at`), the keyset of its pages. */
export const tableReads = <S extends Schema.Decoder<unknown>, A extends { readonly id: string; readonly createdAt: DateTime.Utc }>(
  sql: SqlClient,
  table: Table<S, A>
): TableReads<A> => {
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(table.Row))
  const decode = (rows: ReadonlyArray<unknown>) => Effect.map(decodeRows(rows), (decoded) => decoded.map((row) => new table.Class(row)))
  const select = sql`SELECT ${sql.literal(table.columns)} FROM ${sql(table.name)}`
  const findOne = (where: Fragment) =>
    sql`${select} WHERE ${where}`.pipe(
      Effect.flatMap(decode),
      Effect.map((found) => Option.fromNullishOr(found[0])),
      orUnavailable
    )
  const findInWorkspace = (workspaceId: WorkspaceId, id: string) => findOne(sql`workspace_id = ${workspaceId} AND id = ${id}`)
  const newestInWorkspace = (workspaceId: WorkspaceId, page: PageRequest) =>
    sql`
      ${select}
      WHERE workspace_id = ${workspaceId} AND ${afterCursor(sql, page)}
      ORDER BY created_at DESC, id COLLATE "C" DESC
      LIMIT ${fetchSize(page)}
    `.pipe(Effect.flatMap(decode), Effect.map((rows) => toPage(rows, page)), orUnavailable)
  return { decode, findOne, findInWorkspace, newestInWorkspace }
}
