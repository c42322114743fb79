import { emailKey as keyOfEmail, normalizeEmail, type RateLimited, type Unavailable } from "@atrium/domain"
import { Context, Effect, Layer, Option } from "effect"
import { makeRateLimitCheck, type RateLimitOptions } from "./rate-limit.ts"

/** Attempts allowed per subject on the routes that work without a principal, guess secrets or mail people, per window. */
export interface ThrottleLimits {
  /** Sign-in per normalised email (slows guessing one password) and per client address (slows spraying accounts). */
  readonly signIn: { readonly perEmail: RateLimitOptions; readonly perAddress: RateLimitOptions }
  /** Sign-up per email and per client address: `email_taken` must not enumerate accounts at speed. */
  readonly signUp: { readonly perEmail: RateLimitOptions; readonly perAddress: RateLimitOptions }
  /** Refresh per client address: a refresh token is a secret to guess. */
  readonly refresh: { readonly perAddress: RateLimitOptions }
  /** Invitation accept per client address and per session: invitation tokens are secrets to guess. */
  readonly acceptInvitation: { readonly perAddress: RateLimitOptions; readonly perSession: RateLimitOptions }
  /** Password-reset requests per normalised email, known or not (nobody floods one inbox), and per client address. */
  readonly passwordReset: { readonly perEmail: RateLimitOptions; readonly perAddress: RateLimitOptions }
  /** Verification resends per account and per client address: each one mails someone. */
  readonly resendVerification: { readonly perAccount: RateLimitOptions; readonly perAddress: RateLimitOptions }
  /** Link redemptions (verify-email, reset confirm) per client address: tokens are unguessable, this only caps the work. */
  readonly redeemLink: { readonly perAddress: RateLimitOptions }
}

const perMinute = (limit: number): RateLimitOptions => ({ limit, window: "1 minute" })
const perHour = (limit: number): RateLimitOptions => ({ limit, window: "1 hour" })

/** Limits generous for people and apps, tight for scripts. */
export const defaultThrottleLimits: ThrottleLimits = {
  signIn: { perEmail: perMinute(10), perAddress: perMinute(30) },
  signUp: { perEmail: perMinute(3), perAddress: perMinute(10) },
  refresh: { perAddress: perMinute(60) },
  acceptInvitation: { perAddress: perMinute(10), perSession: perMinute(10) },
  passwordReset: { perEmail: perHour(3), perAddress: perHour(20) },
  resendVerification: { perAccount: perHour(3), perAddress: perHour(20) },
  redeemLink: { perAddress: perMinute(30) }
}

type Check = Effect.Effect<void, RateLimited | Unavailable>

// The same spelling variants count as one email, as accounts compare them.
const emailKey = (email: string) => Option.match(normalizeEmail(email), { onNone: () => email.trim().toLowerCase(), onSome: keyOfEmail })

/**
 * Counts attempts on the unauthenticated (or secret-guessing) routes in the app's `RateLimiter`, known subject or not,
 * so the limit itself tells nothing about which accounts exist. With a shared store the counts are shared by every process.
 */
export class Throttles extends Context.Service<Throttles, {
  readonly signIn: (address: string, email: string) => Check
  readonly signUp: (address: string, email: string) => Check
  readonly refresh: (address: string) => Check
  readonly acceptInvitation: (address: string, sessionId: string) => Check
  readonly passwordReset: (address: string, email: string) => Check
  readonly resendVerification: (address: string, userId: string) => Check
  readonly redeemLink: (address: string) => Check
}>()("@atrium/adapters-http/Throttles") {
  /** The throttles over the app's `RateLimiter`. */
  static readonly layerWith = (limits: ThrottleLimits) =>
    Layer.effect(
      Throttles,
      Effect.gen(function*() {
        const signInAddress = yield* makeRateLimitCheck(limits.signIn.perAddress)
        const signInEmail = yield* makeRateLimitCheck(limits.signIn.perEmail)
        const signUpAddress = yield* makeRateLimitCheck(limits.signUp.perAddress)
        const signUpEmail = yield* makeRateLimitCheck(limits.signUp.perEmail)
        const refreshAddress = yield* makeRateLimitCheck(limits.refresh.perAddress)
        const acceptAddress = yield* makeRateLimitCheck(limits.acceptInvitation.perAddress)
        const acceptSession = yield* makeRateLimitCheck(limits.acceptInvitation.perSession)
        const resetAddress = yield* makeRateLimitCheck(limits.passwordReset.perAddress)
        const resetEmail = yield* makeRateLimitCheck(limits.passwordReset.perEmail)
        const resendAddress = yield* makeRateLimitCheck(limits.resendVerification.perAddress)
        const resendAccount = yield* makeRateLimitCheck(limits.resendVerification.perAccount)
        const redeemAddress = yield* makeRateLimitCheck(limits.redeemLink.perAddress)
        return Throttles.of({
          signIn: (address, email) =>
            signInAddress(`sign-in:address:${address}`, "this client address").pipe(
              Effect.andThen(signInEmail(`sign-in:email:${emailKey(email)}`, "this email"))
            ),
          signUp: (address, email) =>
            signUpAddress(`sign-up:address:${address}`, "this client address").pipe(
              Effect.andThen(signUpEmail(`sign-up:email:${emailKey(email)}`, "this email"))
            ),
          refresh: (address) => refreshAddress(`refresh:address:${address}`, "this client address"),
          acceptInvitation: (address, sessionId) =>
            acceptAddress(`accept:address:${address}`, "this client address").pipe(
              Effect.andThen(acceptSession(`accept:session:${sessionId}`, "this session"))
            ),
          passwordReset: (address, email) =>
            resetAddress(`password-reset:address:${address}`, "this client address").pipe(
              Effect.andThen(resetEmail(`password-reset:email:${emailKey(email)}`, "this email"))
            ),
          resendVerification: (address, userId) =>
            resendAddress(`verify-resend:address:${address}`, "this client address").pipe(
              Effect.andThen(resendAccount(`verify-resend:user:${userId}`, "this account"))
            ),
          redeemLink: (address) => redeemAddress(`redeem-link:address:${address}`, "this client address")
        })
      })
    )
}
