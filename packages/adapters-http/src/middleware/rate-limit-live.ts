import { CurrentPrincipal } from "@atrium/domain"
import { Duration, Effect, Layer } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { RateLimiter } from "effect/persistence"
import { CurrentAnyPrincipal, KeyOrSessionRateLimit } from "../api/key-or-session.ts"
import { RateLimit } from "../api/rate-limit.ts"
import { RateLimitedProblem, UnavailableProblem } from "../api/problems.ts"

/** How many requests one API key (or session) may make per window. */
export interface RateLimitOptions {
  readonly limit: number
  readonly window: Duration.Input
}

/** Counts one request against `key`; over the limit it fails with 429 naming `subject` ("this API key"). */
export type RateLimitCheck = (key: string, subject: string) => Effect.Effect<void, RateLimitedProblem | UnavailableProblem, HttpServerRequest.HttpServerRequest>

const seconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

/** A fixed-window check over the `RateLimiter`, answering the RateLimit headers and, over the limit, `Retry-After`. */
export const makeRateLimitCheck = (options: RateLimitOptions) =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    const window = Duration.fromInputUnsafe(options.window)
    const limit = options.limit
    // IETF draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: 600;w=60`, `RateLimit: limit=600, remaining=12, reset=30`.
    const policy = `${limit};w=${seconds(window)}`
    const headers = (remaining: number, reset: Duration.Duration) =>
      HttpEffect.appendPreResponseHandler((_request, response) =>
        Effect.succeed(HttpServerResponse.setHeaders(response, {
          "ratelimit-policy": policy,
          "ratelimit": `limit=${limit}, remaining=${remaining}, reset=${seconds(reset)}`
        }))
      )
    const refuse = (subject: string) => (error: RateLimiter.RateLimiterError): Effect.Effect<never, RateLimitedProblem | UnavailableProblem, HttpServerRequest.HttpServerRequest> => {
      if (error.reason._tag !== "RateLimitExceeded") {
        // The limiter could not prove the request allowed: refuse it as a retryable outage.
        return Effect.fail(new UnavailableProblem({ detail: "Rate limit state is unavailable; retry shortly" }))
      }
      const retryAfter = seconds(error.reason.retryAfter)
      return headers(0, error.reason.retryAfter).pipe(
        Effect.andThen(HttpEffect.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfter)))
        )),
        Effect.andThen(Effect.fail(new RateLimitedProblem({
          retryAfter,
          detail: `More than ${limit} requests in ${seconds(window)} seconds for ${subject}`
        })))
      )
    }
    const check: RateLimitCheck = (key, subject) =>
      limiter.consume({ key, limit, window }).pipe(
        Effect.catchTag("RateLimiterError", refuse(subject)),
        Effect.flatMap((result) => headers(result.remaining, result.resetAfter))
      )
    return check
  })

/** The `RateLimit` middleware over an Effect `RateLimiter` (bring its store: memory here, Redis for many processes). */
export const RateLimitLive = (options: RateLimitOptions) =>
  Layer.effect(
    RateLimit,
    Effect.gen(function*() {
      const check = yield* makeRateLimitCheck(options)
      // Untraced on purpose: it runs on every request, and the domain calls inside it carry spans.
      return RateLimit.of(Effect.fnUntraced(function*(httpEffect) {
        const principal = yield* CurrentPrincipal
        yield* check(principal.keyId, "this API key")
        return yield* httpEffect
      }))
    })
  )

/** The `KeyOrSessionRateLimit` middleware: the same limits, counted per API key or per session. */
export const KeyOrSessionRateLimitLive = (options: RateLimitOptions) =>
  Layer.effect(
    KeyOrSessionRateLimit,
    Effect.gen(function*() {
      const check = yield* makeRateLimitCheck(options)
      return KeyOrSessionRateLimit.of(Effect.fnUntraced(function*(httpEffect) {
        const principal = yield* CurrentAnyPrincipal
        yield* principal._tag === "ApiKeyPrincipal"
          ? check(principal.keyId, "this API key")
          : check(principal.sessionId, "this session")
        return yield* httpEffect
      }))
    })
  )

/** A per-process memory `RateLimiter`, shared by every limit of the app. */
export const RateLimiterMemory = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))

/** `RateLimitLive` with a per-process memory store. */
export const RateLimitMemory = (options: RateLimitOptions) => RateLimitLive(options).pipe(Layer.provide(RateLimiterMemory))
