import { StoreRejected, StoreUnreachable } from "@atrium/domain"
import { Effect } from "effect"

/** What a store's HTTP status means: 404/410/400 the store knows no such purchase; anything else (401, 429, 5xx) try later. */
export const storeStatusFailure = (store: string, status: number): Effect.Effect<never, StoreRejected | StoreUnreachable> =>
  status === 400 || status === 404 || status === 410
    ? Effect.fail(new StoreRejected({ store, status }))
    : Effect.fail(new StoreUnreachable({ store, reason: `status ${status}` }))

/** A failure of the transport, with fixed text (the client's own error carries the request and its Authorization). */
export const storeTransportFailure = (store: string, what: string) => () => new StoreUnreachable({ store, reason: what })

/**
 * `/a/b/c` from path segments, each percent-encoded, then a literal custom verb (`:acknowledge`) if any. A segment that
 * is not well-formed Unicode (a lone surrogate) cannot be encoded: that request is malformed, answered as the store
 * would answer it (400), never thrown.
 */
export const urlPath = (store: string, segments: ReadonlyArray<string>, verb = ""): Effect.Effect<string, StoreRejected> =>
  segments.every((segment) => segment.isWellFormed())
    ? Effect.succeed(segments.map((segment) => `/${encodeURIComponent(segment)}`).join("") + verb)
    : Effect.fail(new StoreRejected({ store, status: 400 }))
