import { Cursor, PageLimit } from "@atrium/domain"
import { Schema } from "effect"

/** `?limit=` (1–100, default 20) and `?cursor=`, the query every list takes. */
export const PageQuery = {
  // An integer in the document (generated clients send `limit: 5`); the query string decodes into it.
  limit: Schema.optional(PageLimit).annotateKey({
    description: "Page size, 1–100 (default 20)"
  }),
  cursor: Schema.optional(Cursor)
}

/** The `nextCursor` of a page: where the next one starts, `null` at the end. */
export const NextCursor = Schema.NullOr(Schema.String).annotate({
  description: "Pass as `?cursor=` for the next page; `null` on the last page"
})
