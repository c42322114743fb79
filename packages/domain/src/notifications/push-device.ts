import { Schema } from "effect"
import { PushDeviceId, SessionId, UserId } from "../shared/index.ts"

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

/** What the app sends when it registers for push. */
export const PushDeviceRegistration = Schema.Struct({
  expoPushToken: ExpoPushToken,
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
  expoPushToken: ExpoPushToken,
  platform: DevicePlatform,
  appVersion: Schema.String,
  locale: Schema.String,
  createdAt: Schema.DateTimeUtc,
  updatedAt: Schema.DateTimeUtc
}) {}
