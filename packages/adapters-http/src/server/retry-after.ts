import type { RateLimited } from "@atrium/domain"
import { Context, Effect } from "effect"
import { rateLimitHeaders } from "./rate-limit.ts"
import { CurrentRequestFacts, respondWith } from "./request-facts.ts"

/**
 * A domain `RateLimited` (a business limit, not the request limiter) answers with its `Retry-After`, and its RateLimit
 * headers describe the limit that refused, never the request limiter's that let the request through.
 */
export const withRetryAfter = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.tapError(effect, (error: E) => isRateLimited(error) ? refusedBy(error) : Effect.void)

const refusedBy = (error: RateLimited): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const facts = Context.get(fiber.context, CurrentRequestFacts)
    if (facts !== undefined) {
      delete facts.headers["ratelimit"]
      delete facts.headers["ratelimit-policy"]
    }
    const limit = error.limit === undefined || error.windowSeconds === undefined
      ? {}
      : rateLimitHeaders({ limit: error.limit, windowSeconds: error.windowSeconds, remaining: 0, reset: error.retryAfter })
    return respondWith({ ...limit, "retry-after": String(error.retryAfter) })
  })

const isRateLimited = (error: { readonly _tag: string }): error is RateLimited => error._tag === "RateLimited"
