import { Schema } from "effect"
import { isCursorText } from "./cursor.ts"

/** How many records a list returns at most: `?limit=` 1–100, default 20. */
export const PageLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })).annotate({
  description: "Page size, 1–100 (default 20)"
})

/** Opaque position after which the next page starts; text that no page produced is refused (400), never read as a date. */
// Described before its checks: a description on the last check went with that check, which JSON Schema cannot show.
export const Cursor = Schema.String.annotate({
  description: "Opaque cursor from a previous page's `nextCursor`"
}).check(
  Schema.isPattern(/^[A-Za-z0-9_-]{1,200}$/),
  Schema.makeFilter((text) => isCursorText(text) || "not a cursor from a previous page")
)

/** A request for one page of a list. */
export interface PageRequest {
  readonly limit: number
  readonly cursor: string | undefined
}

/** One page of a list and where the next one starts (`null` at the end). */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly nextCursor: string | null
}
