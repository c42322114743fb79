import { DevicePlatform, InstallationId, NotificationPreferences } from "@atrium/domain"
import { Schema } from "effect"

/** A device registered for the signed-in user; the push token is the user's own and is shown back to them only. */
export const PushDeviceView = Schema.Struct({
  installationId: InstallationId,
  expoPushToken: Schema.String,
  platform: DevicePlatform,
  appVersion: Schema.String,
  locale: Schema.String,
  createdAt: Schema.String.annotate({ format: "date-time" }),
  updatedAt: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "PushDevice" })

/** The user's devices (only their own). */
export const PushDeviceList = Schema.Struct({ data: Schema.Array(PushDeviceView) }).annotate({ identifier: "PushDeviceList" })

/** The preferences, and whether push is configured on this server at all. */
export const NotificationPreferencesView = Schema.Struct({
  pushEnabled: Schema.Boolean.annotate({ description: "False when the server has no push credential: nothing is sent" }),
  preferences: NotificationPreferences
}).annotate({ identifier: "NotificationPreferencesView" })
