import { RateLimited, Unavailable } from "@atrium/domain"
import { Context, Duration, Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { respondWithUnsafe } from "./request-facts.ts"

/** How many requests one subject may make per window. */
export interface RateLimitOptions {
  readonly limit: number
  readonly window: Duration.Input
}

/** Counts one request against `key`; over the limit it fails with 429 naming `subject` ("this API key"). */
export type RateLimitCheck = (key: string, subject: string) => Effect.Effect<void, RateLimited | Unavailable>

/**
 * Counts one request against `key`, then runs `next`: in one step, for a front door that already holds the request's
 * `context` (where the RateLimit headers go). Over the limit it refuses with 429 naming `subject`.
 */
export type RateLimitGate = <A, E, R>(
  key: string,
  subject: string,
  context: Context.Context<never>,
  next: Effect.Effect<A, E, R>
) => Effect.Effect<A, E | RateLimited | Unavailable, R>

/**
 * The RateLimit headers of one limit (IETF draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: 600;w=60`,
 * `RateLimit: limit=600, remaining=12, reset=30`.
 */
export const rateLimitHeaders = (
  state: { readonly limit: number; readonly windowSeconds: number; readonly remaining: number; readonly reset: number }
): Record<string, string> => ({
  "ratelimit-policy": `${state.limit};w=${state.windowSeconds}`,
  "ratelimit": `limit=${state.limit}, remaining=${state.remaining}, reset=${state.reset}`
})

const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

// The limiter could not prove the request allowed: refuse it as a retryable outage.
const storeDown = new Unavailable({ dependency: "rate limit store" })

/** A fixed-window gate over the `RateLimiter`, answering the RateLimit headers and, over the limit, `Retry-After`. */
export const makeRateLimitGate = (options: RateLimitOptions) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const window = Duration.fromInputUnsafe(options.window)
    const limit = options.limit
    // What does not change from one request to the next is worked out once, here.
    const windowSeconds = seconds(window)
    const headers = (remaining: number, reset: Duration.Duration) => rateLimitHeaders({ limit, windowSeconds, remaining, reset: seconds(reset) })
    const refuse = (subject: string, context: Context.Context<never>, error: RateLimiter.RateLimiterError): Effect.Effect<never, RateLimited | Unavailable> => {
      if (error.reason._tag !== "RateLimitExceeded") return Effect.fail(storeDown)
      const retryAfter = seconds(error.reason.retryAfter)
      respondWithUnsafe(context, { ...headers(0, error.reason.retryAfter), "retry-after": String(retryAfter) })
      return Effect.fail(
        new RateLimited({ retryAfter, limit, windowSeconds, detail: `More than ${limit} requests in ${windowSeconds} seconds for ${subject}` })
      )
    }
    const gate: RateLimitGate = (key, subject, context, next) =>
      Effect.matchEffect(limiter.consume({ key, limit, window }), {
        onFailure: (error) => refuse(subject, context, error),
        onSuccess: (result) => {
          respondWithUnsafe(context, headers(result.remaining, result.resetAfter))
          return next
        }
      })
    return gate
  })

/** `makeRateLimitGate` as a check on its own (the throttles). */
export const makeRateLimitCheck = (options: RateLimitOptions) =>
  Effect.map(makeRateLimitGate(options), (gate): RateLimitCheck => (key, subject) =>
    Effect.withFiber((fiber) => gate(key, subject, fiber.context, Effect.void)))

/** A per-process memory `RateLimiter`, shared by every limit of the app. */
export const RateLimiterMemory = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))
