// The server's request ids begin with their time, so a request-log lookup by id reads the batches of that minute only.

// A lower-case hex digit's value, else -1.
const hexDigit = (code: number): number => code >= 48 && code <= 57 ? code - 48 : code >= 97 && code <= 102 ? code - 87 : -1

// Many requests start within the same millisecond: its part of the id is formatted once.
let prefixAt = -1
let prefix = ""

/**
 * A request id the server makes: `req_`, the time as 12 hex digits of epoch milliseconds, then 20 random hex digits of
 * `uuid` (a version 4 UUID, `8-4-4-4-12`: its first 8 and last 12 digits, none of them fixed by the version).
 */
export const serverRequestId = (at: number, uuid: string): string => {
  if (at !== prefixAt) {
    prefixAt = at
    prefix = `req_${at.toString(16).padStart(12, "0")}`
  }
  return `${prefix}${uuid.slice(0, 8)}${uuid.slice(24)}`
}

/**
 * The time a request id shaped as `serverRequestId` makes them holds (`req_` and 32 lower-case hex digits); `undefined`
 * for any other id (a client's own, say). Read digit by digit: it runs for every line of the log, where a regular
 * expression's match was the largest part of writing a flush.
 */
export const serverRequestIdTime = (requestId: string): number | undefined => {
  if (requestId.length !== 36 || !requestId.startsWith("req_")) return undefined
  let time = 0
  for (let i = 4; i < 36; i++) {
    const digit = hexDigit(requestId.charCodeAt(i))
    if (digit < 0) return undefined
    if (i < 16) time = time * 16 + digit
  }
  return time
}
