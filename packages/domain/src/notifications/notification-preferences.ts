import { Schema } from "effect"

/** What a notification is about; each can be turned off per user. */
export const NotificationCategory = Schema.Literals(["ai_tasks", "invitations", "feature_requests", "billing", "schedules"]).annotate({
  identifier: "NotificationCategory"
})
export type NotificationCategory = typeof NotificationCategory.Type

/** A user's choice per category; every category is on until turned off. */
export const NotificationPreferences = Schema.Struct({
  ai_tasks: Schema.Boolean,
  invitations: Schema.Boolean,
  feature_requests: Schema.Boolean,
  billing: Schema.Boolean,
  schedules: Schema.Boolean
}).annotate({ identifier: "NotificationPreferences" })
export type NotificationPreferences = typeof NotificationPreferences.Type

/** Everything on. */
export const defaultNotificationPreferences: NotificationPreferences = {
  ai_tasks: true,
  invitations: true,
  feature_requests: true,
  billing: true,
  schedules: true
}
