import { CurrentPrincipal, principalId, RateLimited, Unavailable } from "@atrium/domain"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { CurrentSession, RateLimit } from "../contract/security.ts"

/** How many requests one subject may make per window. */
export interface RateLimitOptions {
  readonly limit: number
  readonly window: Duration.Input
}

/** Counts one request against `key`; over the limit it fails with 429 naming `subject` ("this API key"). */
export type RateLimitCheck = (key: string, subject: string) => Effect.Effect<void, RateLimited | Unavailable, HttpServerRequest.HttpServerRequest>

const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

// The limiter could not prove the request allowed: refuse it as a retryable outage.
const storeDown = new Unavailable({ dependency: "rate limit store" })

/** A fixed-window check over the `RateLimiter`, answering the RateLimit headers and, over the limit, `Retry-After`. */
export const makeRateLimitCheck = (options: RateLimitOptions) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const window = Duration.fromInputUnsafe(options.window)
    const limit = options.limit
    // IETF draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: 600;w=60`, `RateLimit: limit=600, remaining=12, reset=30`.
    const policy = `${limit};w=${seconds(window)}`
    const headers = (remaining: number, reset: Duration.Duration, retryAfter?: number) =>
      HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, {
          "ratelimit-policy": policy,
          "ratelimit": `limit=${limit}, remaining=${remaining}, reset=${seconds(reset)}`,
          ...(retryAfter === undefined ? {} : { "retry-after": String(retryAfter) })
        }))
      )
    const refuse = (subject: string) => (error: RateLimiter.RateLimiterError): Effect.Effect<never, RateLimited | Unavailable, HttpServerRequest.HttpServerRequest> => {
      if (error.reason._tag !== "RateLimitExceeded") return Effect.fail(storeDown)
      const retryAfter = seconds(error.reason.retryAfter)
      return headers(0, error.reason.retryAfter, retryAfter).pipe(
        Effect.andThen(Effect.fail(new RateLimited({ retryAfter, detail: `More than ${limit} requests in ${seconds(window)} seconds for ${subject}` })))
      )
    }
    const check: RateLimitCheck = (key, subject) =>
      limiter.consume({ key, limit, window }).pipe(
        Effect.catch(refuse(subject)),
        Effect.flatMap((result) => headers(result.remaining, result.resetAfter))
      )
    return check
  })

// Listed after an authentication middleware: nothing to count by means the group is misconfigured.
const noSubject = Effect.die(new Error("RateLimit runs after Authentication or SessionAuthentication"))

/**
 * THE `RateLimit` middleware: the same limit per API key or per session (the principal's, or the session of a
 * session-only route), over an Effect `RateLimiter` (bring its store).
 */
export const RateLimitLive = (options: RateLimitOptions) =>
  Layer.effect(
    RateLimit,
    Effect.gen(function*() {
      const check = yield* makeRateLimitCheck(options)
      // Untraced on purpose: it runs on every request.
      return RateLimit.of(Effect.fnUntraced(function*(httpEffect) {
        const principal = yield* Effect.serviceOption(CurrentPrincipal)
        if (Option.isSome(principal)) {
          const subject = principal.value._tag === "ApiKeyPrincipal" ? "this API key" : "this session"
          yield* check(principalId(principal.value), subject)
        } else {
          const session = yield* Effect.serviceOption(CurrentSession)
          if (Option.isNone(session)) return yield* noSubject
          yield* check(session.value.id, "this session")
        }
        return yield* httpEffect
      }))
    })
  )

/** A per-process memory `RateLimiter`, shared by every limit of the app. */
export const RateLimiterMemory = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))
