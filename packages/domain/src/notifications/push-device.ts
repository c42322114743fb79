import { Effect, type Redacted, Schema } from "effect"
import { PushDeviceId, SecretBox, SecretHasher, SessionId, UserId } from "../shared/index.ts"

/** The app's own id for one installation (stable across launches, new after a reinstall). */
export const InstallationId = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._:-]{1,100}$/)).annotate({
  description: "The app installation's id: 1–100 of A–Z a–z 0–9 . _ : -"
})

/** An Expo push token as the app receives it from Expo. Never logged. */
export const ExpoPushToken = Schema.String.check(Schema.isPattern(/^Expo(?:nent)?PushToken\[[A-Za-z0-9_-]{1,200}\]$/)).annotate({
  description: "Expo push token, `ExponentPushToken[…]`",
  examples: ["ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"]
})

/** Which store build registered the device. */
export const DevicePlatform = Schema.Literals(["ios", "android"])
export type DevicePlatform = typeof DevicePlatform.Type

/** What the app sends when it registers for push; the token is redacted from the moment it is decoded. */
export const PushDeviceRegistration = Schema.Struct({
  expoPushToken: Schema.RedactedFromValue(ExpoPushToken),
  platform: DevicePlatform,
  appVersion: Schema.String.check(Schema.isPattern(/^[0-9A-Za-z.+_-]{1,40}$/)).annotate({ description: "The app's version, e.g. 1.4.2" }),
  locale: Schema.String.check(Schema.isPattern(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/)).annotate({ description: "BCP 47 locale, e.g. en-GB" })
})
export type PushDeviceRegistration = typeof PushDeviceRegistration.Type

/** A device that receives a user's notifications; it belongs to the session that registered it and ends with it. */
export class PushDevice extends Schema.Class<PushDevice>("@atrium/domain/PushDevice")({
  id: PushDeviceId,
  userId: UserId,
  sessionId: SessionId,
  installationId: InstallationId,
  /** The token sealed under the server key; opened only to send to it or to show it to its owner. */
  sealedToken: Schema.String,
  /** The token's keyed digest: finds the device by token and keeps a token on one device. */
  tokenDigest: Schema.String,
  platform: DevicePlatform,
  appVersion: Schema.String,
  locale: Schema.String,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}

/** A push token as it is kept: sealed, with the digest that finds it. */
export interface SealedPushToken {
  readonly sealedToken: string
  readonly tokenDigest: string
}

/** Seals a push token and digests it; the plaintext goes no further. */
export const sealPushToken = Effect.fnUntraced(function*(token: Redacted.Redacted<string>) {
  const box = yield* SecretBox
  const hasher = yield* SecretHasher
  return { sealedToken: yield* box.seal(token), tokenDigest: yield* hasher.digest(token) } satisfies SealedPushToken
})

/** One of the owner's devices with its token opened for them; the token stays redacted until a view writes it out. */
export interface OwnPushDevice {
  readonly device: PushDevice
  readonly expoPushToken: Redacted.Redacted<string>
}
