import { DateTime, Option } from "effect"

/** A keyset position in a newest-first list: the `(created_at, id)` of the last row returned. */
export interface CursorPosition {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

/** Encodes a position as base64url text, which fits the domain's `Cursor` pattern (`[A-Za-z0-9_-]`). */
export const encodeCursor = (position: CursorPosition): string =>
  Buffer.from(`${DateTime.toEpochMillis(position.createdAt)}.${position.id}`, "utf8").toString("base64url")

/**
 * Decodes a cursor made by `encodeCursor`. Anything else is `None`, and lists treat it as "from the start":
 * cursors are opaque and only ever come from a previous page, so a mangled one is not worth a failure.
 */
export const decodeCursor = (cursor: string | undefined): Option.Option<CursorPosition> => {
  if (cursor === undefined || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Option.none()
  const match = /^(-?\d{1,16})\.([0-9A-Za-z_]{1,100})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
  if (match === null) return Option.none()
  const [, millis, id] = match
  if (millis === undefined || id === undefined) return Option.none()
  return Option.map(DateTime.make(Number(millis)), (createdAt) => ({ createdAt, id }))
}
