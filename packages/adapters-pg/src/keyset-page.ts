import type { Page, PageRequest } from "@atrium/domain"
import { DateTime, Option } from "effect"
import type { SqlClient } from "effect/sql/SqlClient"
import type { Fragment } from "effect/sql/Statement"
import { decodeCursor, encodeCursor } from "./cursor.ts"

/** How many rows to fetch for a page: one more than asked, to learn whether another page follows. */
export const fetchSize = (page: PageRequest): number => Math.max(1, Math.trunc(page.limit)) + 1

/** `(created_at, id) < cursor` for newest-first keyset paging; always true without a (valid) cursor. */
export const afterCursor = (sql: SqlClient, page: PageRequest): Fragment =>
  Option.match(decodeCursor(page.cursor), {
    onNone: () => sql`TRUE`,
    onSome: (position) => sql`(created_at, id) < (${DateTime.toDateUtc(position.createdAt)}, ${position.id})`
  })

/** Cuts the fetched rows to the page and points `nextCursor` at its last row when more rows follow. */
export const toPage = <A extends { readonly createdAt: DateTime.Utc; readonly id: string }>(
  rows: ReadonlyArray<A>,
  page: PageRequest
): Page<A> => {
  const data = rows.slice(0, fetchSize(page) - 1)
  const last = data.at(-1)
  return { data, nextCursor: rows.length > data.length && last !== undefined ? encodeCursor(last) : null }
}
