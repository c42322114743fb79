import { normalizeEmail, type RateLimited, type Unavailable } from "@atrium/domain"
import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { makeRateLimitCheck, type RateLimitOptions } from "./rate-limit.ts"

/** Sign-in attempts allowed per normalised email and per client address. */
export interface SignInRateLimits {
  readonly perEmail: RateLimitOptions
  readonly perAddress: RateLimitOptions
}

/** 10 attempts a minute per email (slows guessing one password), 30 per address (slows spraying many accounts). */
export const defaultSignInRateLimits: SignInRateLimits = {
  perEmail: { limit: 10, window: "1 minute" },
  perAddress: { limit: 30, window: "1 minute" }
}

// The same spelling variants count as one email, as accounts compare them.
const emailKey = (email: string) => Option.getOrElse(normalizeEmail(email), () => email.trim().toLowerCase())

/** Counts sign-in attempts, known email or not, so the limit itself tells nothing about which accounts exist. */
export class SignInThrottle extends Context.Service<SignInThrottle, {
  readonly check: (address: string, email: string) => Effect.Effect<void, RateLimited | Unavailable, HttpServerRequest.HttpServerRequest>
}>()("@atrium/adapters-http/SignInThrottle") {
  /** The throttle over the app's `RateLimiter`. */
  static readonly layer = (limits: SignInRateLimits) =>
    Layer.effect(
      SignInThrottle,
      Effect.gen(function*() {
        const byAddress = yield* makeRateLimitCheck(limits.perAddress)
        const byEmail = yield* makeRateLimitCheck(limits.perEmail)
        return SignInThrottle.of({
          check: (address, email) =>
            byAddress(`sign-in:address:${address}`, "this client address").pipe(
              Effect.andThen(byEmail(`sign-in:email:${emailKey(email)}`, "this email"))
            )
        })
      })
    )
}
