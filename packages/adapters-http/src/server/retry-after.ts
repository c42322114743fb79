import type { RateLimited } from "@atrium/domain"
import { Effect } from "effect"
import { respondWith } from "./request-facts.ts"

/** A domain `RateLimited` (a business limit, not the request limiter) answers with its `Retry-After` too. */
export const withRetryAfter = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (error: E) => isRateLimited(error) ? respondWith({ "retry-after": String(error.retryAfter) }) : Effect.void)

const isRateLimited = (error: { readonly _tag: string }): error is RateLimited => error._tag === "RateLimited"
