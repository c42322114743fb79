import type { PurchaseStatus, StoreEnvironment, StoreVerdict } from "@atrium/domain"
import { DateTime, Option, Schema } from "effect"
import { StoreText } from "../store-text.ts"

/** An App Store Server Notification V2 request body. */
export const SignedPayloadBody = Schema.Struct({ signedPayload: Schema.String.check(Schema.isMaxLength(100_000)) })

/** The fields of a verified App Store `JWSTransactionDecodedPayload` that Atrium acts on. */
export const AppleTransaction = Schema.Struct({
  transactionId: StoreText,
  originalTransactionId: StoreText,
  bundleId: StoreText,
  productId: StoreText,
  environment: StoreText,
  signedDate: Schema.Number,
  expiresDate: Schema.optional(Schema.Number),
  revocationDate: Schema.optional(Schema.Number),
  appAccountToken: Schema.optional(StoreText)
})
export type AppleTransaction = typeof AppleTransaction.Type

/** The fields of a verified `JWSRenewalInfoDecodedPayload`. */
export const AppleRenewal = Schema.Struct({
  signedDate: Schema.Number,
  autoRenewStatus: Schema.optional(Schema.Number),
  gracePeriodExpiresDate: Schema.optional(Schema.Number)
})
export type AppleRenewal = typeof AppleRenewal.Type

/** The fields of a verified App Store Server Notification V2 payload. */
export const AppleNotification = Schema.Struct({
  notificationType: StoreText,
  subtype: Schema.optional(StoreText),
  notificationUUID: StoreText.check(Schema.isBetweenLength(1, 100)),
  signedDate: Schema.Number,
  data: Schema.optional(Schema.Struct({
    bundleId: StoreText,
    environment: StoreText,
    signedTransactionInfo: Schema.optional(StoreText),
    signedRenewalInfo: Schema.optional(StoreText),
    status: Schema.optional(Schema.Number)
  }))
})
export type AppleNotification = typeof AppleNotification.Type

/** Apple's environment names (`Production`, `Sandbox`); anything else (Xcode, local testing) is no environment of ours. */
export const appleEnvironment = (name: string): Option.Option<StoreEnvironment> =>
  name === "Production" ? Option.some("production") : name === "Sandbox" ? Option.some("sandbox") : Option.none()

const at = (millis: number | undefined): Option.Option<DateTime.Utc> => millis === undefined ? Option.none() : DateTime.make(millis)

// Apple's subscription status codes (Get All Subscription Statuses and notification `data.status`).
const subscriptionStatus = (code: number, autoRenew: boolean): PurchaseStatus | undefined =>
  code === 1 ? (autoRenew ? "active" : "canceled") : code === 2 ? "expired" : code === 3 ? "billing_retry" : code === 4 ? "grace_period" : code === 5 ? "revoked" : undefined

/** What an App Store transaction (with its renewal info, status code and notification type, when known) says. */
export const appleVerdict = (input: {
  readonly transaction: AppleTransaction
  readonly environment: StoreEnvironment
  readonly renewal: Option.Option<AppleRenewal>
  readonly statusCode: Option.Option<number>
  readonly notificationType: Option.Option<string>
  readonly subtype: Option.Option<string>
  readonly storeTime: DateTime.Utc
}): StoreVerdict => {
  const tx = input.transaction
  const type = Option.getOrElse(input.notificationType, () => "")
  const autoRenew = Option.exists(input.renewal, (renewal) => renewal.autoRenewStatus === 1)
  const expiresAt = at(tx.expiresDate)
  const expiredBy = (time: DateTime.Utc) => Option.exists(expiresAt, (end) => !DateTime.isLessThan(time, end))
  // A reversed refund's transaction may still carry the refund's revocation date; the reversal is the later word.
  const refundReversed = type === "REFUND_REVERSED"
  const withdrawn: Option.Option<"refunded" | "revoked"> = type === "REVOKE"
    ? Option.some("revoked")
    : type === "REFUND" || (tx.revocationDate !== undefined && !refundReversed)
    ? Option.some("refunded")
    : Option.none()
  const status = ((): PurchaseStatus => {
    const byCode = Option.getOrUndefined(Option.map(input.statusCode, (code) => subscriptionStatus(code, autoRenew)))
    if (byCode !== undefined) return byCode
    if (type === "EXPIRED" || expiredBy(input.storeTime)) return "expired"
    if (type === "DID_FAIL_TO_RENEW") return Option.contains(input.subtype, "GRACE_PERIOD") ? "grace_period" : "billing_retry"
    return autoRenew ? "active" : "canceled"
  })()
  const graceEnd = Option.flatMap(input.renewal, (renewal) => at(renewal.gracePeriodExpiresDate))
  return {
    store: "app_store",
    environment: input.environment,
    // Apple keeps the original transaction id across upgrades within a group: the same purchase, nothing replaced.
    storeRef: tx.originalTransactionId,
    productId: tx.productId,
    transactionId: tx.transactionId,
    storeTime: input.storeTime,
    accountToken: Option.fromNullishOr(tx.appAccountToken),
    refundReversed,
    withdrawn,
    expiresAt,
    subscription: { status, autoRenew, expiresAt: status === "grace_period" && Option.isSome(graceEnd) ? graceEnd : expiresAt }
  }
}
