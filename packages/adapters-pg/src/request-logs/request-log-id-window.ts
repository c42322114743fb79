import { serverRequestIdTime } from "@atrium/domain"
import { Option } from "effect"

// A line is written when its answer leaves: after its id was made, by less than `laterBy` unless the request was slow.
// `earlierBy` allows for the clock stepping back between the two.
const laterBy = 60_000
const earlierBy = 1_000

/**
 * Whether a line's request id must be found through `request_log_foreign_ids`: any id but one the server made within
 * the minute before `at` (a client's own, one made by a slow request, one that only looks like the server's).
 */
export const isForeignId = (requestId: string, at: number): boolean => {
  const made = serverRequestIdTime(requestId)
  return made === undefined || made < at - laterBy || made > at + earlierBy
}

/** Where the lines of a server-made request id are unless it was recorded as foreign: from its time to a minute later. */
export const foreignIdWindow = (requestId: string): Option.Option<{ readonly from: Date; readonly to: Date }> => {
  const made = serverRequestIdTime(requestId)
  return made === undefined ? Option.none() : Option.some({ from: new Date(made - earlierBy), to: new Date(made + laterBy) })
}
