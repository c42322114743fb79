import { normalizeEmail } from "@atrium/domain"
import { Context, Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { RateLimitedProblem, UnavailableProblem } from "../api/problems.ts"
import { makeRateLimitCheck, type RateLimitOptions } from "../middleware/rate-limit-live.ts"

/** Limits of the routes that send mail or spend its links. */
export interface AccountMailRateLimits {
  /** Reset requests per normalised email (known or not), so nobody can flood one inbox. */
  readonly resetPerEmail: RateLimitOptions
  /** Mail-sending requests (reset, resend) per client address. */
  readonly sendPerAddress: RateLimitOptions
  /** Verification resends per user. */
  readonly resendPerUser: RateLimitOptions
  /** Link uses (verify, confirm) per client address: tokens are unguessable, this only caps the work. */
  readonly redeemPerAddress: RateLimitOptions
}

/** 3 resets an hour per email, 20 sends an hour per address, 3 resends an hour per user, 30 link uses a minute per address. */
export const defaultAccountMailRateLimits: AccountMailRateLimits = {
  resetPerEmail: { limit: 3, window: "1 hour" },
  sendPerAddress: { limit: 20, window: "1 hour" },
  resendPerUser: { limit: 3, window: "1 hour" },
  redeemPerAddress: { limit: 30, window: "1 minute" }
}

const emailKey = (email: string) => Option.getOrElse(normalizeEmail(email), () => email.trim().toLowerCase())

type Check = Effect.Effect<void, RateLimitedProblem | UnavailableProblem, HttpServerRequest.HttpServerRequest>

/** Counts requests that mail people or spend their links, known account or not, so a limit tells nothing about accounts. */
export class AccountMailThrottle extends Context.Service<AccountMailThrottle, {
  readonly reset: (address: string, email: string) => Check
  readonly resend: (address: string, userId: string) => Check
  readonly redeem: (address: string) => Check
}>()("@atrium/adapters-http/AccountMailThrottle") {
  /** The throttle over the app's `RateLimiter`. */
  static readonly layer = (limits: AccountMailRateLimits) =>
    Layer.effect(
      AccountMailThrottle,
      Effect.gen(function*() {
        const sendByAddress = yield* makeRateLimitCheck(limits.sendPerAddress)
        const resetByEmail = yield* makeRateLimitCheck(limits.resetPerEmail)
        const resendByUser = yield* makeRateLimitCheck(limits.resendPerUser)
        const redeemByAddress = yield* makeRateLimitCheck(limits.redeemPerAddress)
        return AccountMailThrottle.of({
          reset: (address, email) =>
            sendByAddress(`mail-send:address:${address}`, "this client address").pipe(
              Effect.andThen(resetByEmail(`password-reset:email:${emailKey(email)}`, "this email"))
            ),
          resend: (address, userId) =>
            sendByAddress(`mail-send:address:${address}`, "this client address").pipe(
              Effect.andThen(resendByUser(`verify-resend:user:${userId}`, "this account"))
            ),
          redeem: (address) => redeemByAddress(`mail-redeem:address:${address}`, "this client address")
        })
      })
    )
}
