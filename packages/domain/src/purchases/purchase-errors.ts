import { Effect, Schema } from "effect"

/** The store's purchase is already bound to another workspace; it is never moved. */
export class PurchaseOwnedElsewhere extends Schema.TaggedError<PurchaseOwnedElsewhere>()("PurchaseOwnedElsewhere", {
  code: Schema.tag("purchase_owned_elsewhere")
}, { httpApiStatus: 409 }) {}

/**
 * A store notification or signed transaction whose signature, certificate chain, bundle or environment fails. The
 * `reason` (which check failed) is for the server log: a caller is answered `invalid_signature` alone, so a forger
 * learns nothing about what to fix next.
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  code: Schema.tag("invalid_signature"),
  reason: Schema.optionalKey(Schema.String)
}, { httpApiStatus: 401 }) {}

/** The store is not configured on this server (no credentials, no bundle or package name). */
export class StoreNotConfigured extends Schema.TaggedError<StoreNotConfigured>()("StoreNotConfigured", {
  code: Schema.tag("store_not_configured"),
  store: Schema.String
}, { httpApiStatus: 409 }) {}

/** The store could not be reached or answered with a failure of its own: try again later, conclude nothing. */
export class StoreUnreachable extends Schema.TaggedError<StoreUnreachable>()("StoreUnreachable", {
  store: Schema.String,
  reason: Schema.String
}) {}

/** The store answered that it knows no such purchase (or the request for it was malformed). */
export class StoreRejected extends Schema.TaggedError<StoreRejected>()("StoreRejected", {
  store: Schema.String,
  status: Schema.Int
}) {}

/** Which check failed goes to the log; the caller is told `invalid_signature` and nothing more. */
export const refusedQuietly = <A, E, R>(source: string, effect: Effect.Effect<A, E | InvalidSignature, R>) =>
  effect.pipe(
    Effect.tapError((error) =>
      error instanceof InvalidSignature ? Effect.logWarning("store signature refused", { source, reason: error.reason ?? "unknown" }) : Effect.void
    ),
    Effect.mapError((error) => error instanceof InvalidSignature ? new InvalidSignature({}) : error)
  )
