// The server's request ids begin with their time, so a request-log lookup by id reads the batches of that minute only.
const serverMade = /^req_([0-9a-f]{12})[0-9a-f]{20}$/

/** A request id the server makes: `req_`, the time as 12 hex digits of epoch milliseconds, then 20 of `randomHex`. */
export const serverRequestId = (at: number, randomHex: string): string =>
  `req_${at.toString(16).padStart(12, "0")}${randomHex.slice(0, 20)}`

/** The time a request id made by `serverRequestId` holds; `undefined` for any other id (a client's own, say). */
export const serverRequestIdTime = (requestId: string): number | undefined => {
  const match = serverMade.exec(requestId)
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16)
}
