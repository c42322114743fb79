import { type CursorPosition, decodeCursor, encodeCursor, type Page, type PageRequest } from "@atrium/domain"
import { DateTime, Option } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Fragment } from "effect/sql/Statement"

/** How many rows to fetch for a page: one more than asked, to learn whether another page follows. */
export const fetchSize = (page: PageRequest): number => Math.max(1, Math.trunc(page.limit)) + 1

/**
 * `(created_at, <idColumn>) < cursor` for newest-first keyset paging; always true without a (valid) cursor. Ids are
 * compared `COLLATE "C"` (code units, as the in-memory adapter does) whatever the database's collation; list queries
 * order by `id COLLATE "C"` to match.
 * `idColumn` is the tie-breaker column, `id` unless the table is keyed otherwise.
 */
export const afterCursor = (sql: SqlClient, page: PageRequest, idColumn = "id"): Fragment =>
  Option.match(decodeCursor(page.cursor), {
    onNone: () => sql`TRUE`,
    onSome: (position) => sql`(created_at, ${sql(idColumn)} COLLATE "C") < (${DateTime.toDateUtc(position.createdAt)}, ${position.id})`
  })

/** Cuts the fetched rows to the page and points `nextCursor` at the position of its last row when more rows follow. */
export const toPageBy = <A>(rows: ReadonlyArray<A>, page: PageRequest, positionOf: (row: A) => CursorPosition): Page<A> => {
  const data = rows.slice(0, fetchSize(page) - 1)
  const last = data.at(-1)
  return { data, nextCursor: rows.length > data.length && last !== undefined ? encodeCursor(positionOf(last)) : null }
}

/** Cuts the fetched rows to the page and points `nextCursor` at its last row when more rows follow. */
export const toPage = <A extends { readonly createdAt: DateTime.Utc; readonly id: string }>(
  rows: ReadonlyArray<A>,
  page: PageRequest
): Page<A> => toPageBy(rows, page, (row) => row)

/**
 * `(created_at, <idColumn>) > cursor` for oldest-first keyset paging; always true without a (valid) cursor.
 * The same cursor format as newest-first lists, read in the other direction.
 */
export const afterCursorAscending = (sql: SqlClient, page: PageRequest, idColumn = "id"): Fragment =>
  Option.match(decodeCursor(page.cursor), {
    onNone: () => sql`TRUE`,
    onSome: (position) => sql`(created_at, ${sql(idColumn)} COLLATE "C") > (${DateTime.toDateUtc(position.createdAt)}, ${position.id})`
  })
