import { Context, Option } from "effect"

/** The id of the request being served, when there is one, so audit entries can name it. */
export const CurrentRequestId = Context.Reference<Option.Option<string>>("@atrium/domain/CurrentRequestId", {
  defaultValue: () => Option.none()
})

// The server's request ids begin with their time, so a request-log lookup by id reads the batches of that minute only.
const serverMade = /^req_([0-9a-f]{12})[0-9a-f]{20}$/

/**
 * A request id the server makes: `req_`, the time as 12 hex digits of epoch milliseconds, then 20 random hex digits of
 * `uuid` (a version 4 UUID, `8-4-4-4-12`: its first 8 and last 12 digits, none of them fixed by the version).
 */
export const serverRequestId = (at: number, uuid: string): string =>
  `req_${at.toString(16).padStart(12, "0")}${uuid.slice(0, 8)}${uuid.slice(24)}`

/** The time a request id made by `serverRequestId` holds; `undefined` for any other id (a client's own, say). */
export const serverRequestIdTime = (requestId: string): number | undefined => {
  const match = serverMade.exec(requestId)
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16)
}
