import { DateTime, Option, Result } from "effect"
import { Base64Url } from "effect/encoding"

/** A keyset position in a list: the `(createdAt, id)` of the last record of a page. */
export interface CursorPosition {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

// Positions outside these bounds come from no page: year 1970 to 9999, and ids as the id generator spells them.
const earliestMillis = 0
const latestMillis = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const textPattern = /^[A-Za-z0-9_-]{1,200}$/
const positionPattern = /^(\d{1,16})\.([0-9A-Za-z_]{1,100})$/

/** Encodes a position as opaque base64url text (`<epoch millis>.<id>`), the one cursor format of every list. */
export const encodeCursor = (position: CursorPosition): string =>
  Base64Url.encode(`${DateTime.toEpochMillis(position.createdAt)}.${position.id}`)

/** Decodes a cursor made by `encodeCursor`; anything else (garbage, an absurd date, a foreign id) is `None`. */
export const decodeCursor = (cursor: string | undefined): Option.Option<CursorPosition> => {
  if (cursor === undefined || !textPattern.test(cursor)) return Option.none()
  const text = Base64Url.decodeString(cursor)
  if (Result.isFailure(text)) return Option.none()
  const match = positionPattern.exec(text.success)
  if (match === null) return Option.none()
  const [, digits, id] = match
  const millis = Number(digits)
  if (id === undefined || !(millis >= earliestMillis && millis <= latestMillis)) return Option.none()
  // Re-encoding must give the same text, so one position has exactly one cursor.
  const position = { createdAt: DateTime.makeUnsafe(millis), id }
  return encodeCursor(position) === cursor ? Option.some(position) : Option.none()
}

/** A cursor of a ranked list (e.g. by votes): `<rank>.<epoch millis>.<id>` in base64url. */
export const encodeRankedCursor = (rank: number, position: CursorPosition): string =>
  Base64Url.encode(`${Math.max(0, Math.trunc(rank))}.${DateTime.toEpochMillis(position.createdAt)}.${position.id}`)

/** Decodes a cursor made by `encodeRankedCursor`; anything else is `None`. */
export const decodeRankedCursor = (cursor: string | undefined): Option.Option<{ readonly rank: number; readonly position: CursorPosition }> => {
  if (cursor === undefined || !textPattern.test(cursor)) return Option.none()
  const text = Base64Url.decodeString(cursor)
  if (Result.isFailure(text)) return Option.none()
  const match = /^(\d{1,15})\.(.*)$/.exec(text.success)
  if (match === null || match[1] === undefined || match[2] === undefined) return Option.none()
  const rank = Number(match[1])
  return Option.flatMap(decodeCursor(Base64Url.encode(match[2])), (position) =>
    encodeRankedCursor(rank, position) === cursor ? Option.some({ rank, position }) : Option.none()
  )
}

/** Whether `text` is a cursor some list produced (plain or ranked): what the contract accepts. */
export const isCursorText = (text: string): boolean => Option.isSome(decodeCursor(text)) || Option.isSome(decodeRankedCursor(text))

/** Orders positions by time, then by id in code-unit order (Postgres compares ids `COLLATE "C"` to match). */
export const comparePositions = (a: CursorPosition, b: CursorPosition): number => {
  const byTime = DateTime.toEpochMillis(a.createdAt) - DateTime.toEpochMillis(b.createdAt)
  if (byTime !== 0) return byTime
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
