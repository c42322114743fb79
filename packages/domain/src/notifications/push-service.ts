import { Context, Effect, type Redacted, Schema } from "effect"
import type { PushMessage } from "./push-message.ts"

/** A message and the token it goes to, opened from its seal for this one request; the token stays redacted. */
export interface OutgoingPush {
  readonly message: PushMessage
  readonly to: Redacted.Redacted<string>
}

/** What the push service answered for one message: a ticket to ask about later, or a refusal naming why. */
export type PushTicket =
  | { readonly status: "ok"; readonly id: string }
  | { readonly status: "error"; readonly error: string }

/** What a receipt says: handed on to Apple/Google, or refused (e.g. `DeviceNotRegistered`). */
export type PushReceipt =
  | { readonly status: "ok" }
  | { readonly status: "error"; readonly error: string }

/** Why a whole request to the push service failed; neither the credential nor a device's token appears in it. */
export const PushServiceFailure = Schema.Literals(["rate_limited", "unavailable", "invalid_credentials", "invalid_response"])
export type PushServiceFailure = typeof PushServiceFailure.Type

/** A request to the push service failed as a whole. */
export class PushServiceError extends Schema.TaggedError<PushServiceError>()("PushServiceError", {
  reason: PushServiceFailure,
  detail: Schema.String,
  /** The service's `Retry-After`, when it sent one. */
  retryAfterSeconds: Schema.NullOr(Schema.Number)
}) {}

/** What the push service port offers. */
export interface PushServiceShape {
  /** False when no access token is configured: nothing is queued or sent, and the app is told. */
  readonly enabled: boolean
  /** One ticket per message, in order; a refusal names its error code only, never the token (Expo's message names it). */
  readonly send: (pushes: ReadonlyArray<OutgoingPush>) => Effect.Effect<ReadonlyArray<PushTicket>, PushServiceError>
  /** Receipts by ticket id; tickets whose receipt is not ready are absent. */
  readonly receipts: (ticketIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, PushReceipt>, PushServiceError>
}

/** Push turned off (no access token): the app sees `features.push: false`. */
export const pushDisabled: PushServiceShape = {
  enabled: false,
  send: () => Effect.fail(new PushServiceError({ reason: "invalid_credentials", detail: "push is not configured", retryAfterSeconds: null })),
  receipts: () => Effect.succeed(new Map())
}

/**
 * Port: the push service (Expo) with the server-held access token; at most 100 messages per call. Disabled unless a
 * composition provides one, so compositions without push need not know it exists.
 */
export class PushService extends Context.Reference<PushServiceShape>("@atrium/domain/PushService", { defaultValue: () => pushDisabled }) {}
