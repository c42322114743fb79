import { SecureRandom } from "effect/crypto"

// A client's id is echoed only when it is short and plain, so it cannot inject into logs or headers.
const acceptable = /^[A-Za-z0-9._-]{1,128}$/

/** The id of a request: the client's `x-request-id` when acceptable, else a fresh `req_…`. */
export const requestIdFor = (incoming: string | undefined): string =>
  incoming !== undefined && acceptable.test(incoming)
    ? incoming
    : `req_${SecureRandom.uuidV4Unsafe().replaceAll("-", "")}`
