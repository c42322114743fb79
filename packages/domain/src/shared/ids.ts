import { Schema } from "effect"

/** A prefixed random identifier such as `ws_…` (brand it at the use site). */
const prefixedId = (prefix: string, description: string) =>
  Schema.String.check(Schema.isPattern(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`))).annotate({
    description,
    examples: [`${prefix}_4xQ9aZ1b7HkP0mVcT3sLeR`]
  })

/** Identifier of a workspace, the tenant boundary. */
export const WorkspaceId = prefixedId("ws", "Workspace identifier").pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type

/** Identifier of a user account. */
export const UserId = prefixedId("usr", "User identifier").pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

/** Identifier of an API key (never the key itself). */
export const ApiKeyId = prefixedId("key", "API key identifier").pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

/** Identifier of a domain event, stable across webhook retries and replays. */
export const EventId = prefixedId("evt", "Event identifier").pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type

/** Identifier of an audit entry. */
export const AuditEntryId = prefixedId("aud", "Audit entry identifier").pipe(Schema.brand("AuditEntryId"))
export type AuditEntryId = typeof AuditEntryId.Type

/** Identifier of a webhook endpoint (subscription). */
export const WebhookEndpointId = prefixedId("whe", "Webhook endpoint identifier").pipe(Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type

/** Identifier of a webhook delivery: one event to one endpoint, with its chain of attempts. */
export const DeliveryId = prefixedId("msg", "Webhook delivery identifier").pipe(Schema.brand("DeliveryId"))
export type DeliveryId = typeof DeliveryId.Type

/** Identifier of one delivery attempt. */
export const AttemptId = prefixedId("att", "Delivery attempt identifier").pipe(Schema.brand("AttemptId"))
export type AttemptId = typeof AttemptId.Type

/** Identifier of an AI task. */
export const TaskId = prefixedId("task", "AI task identifier").pipe(Schema.brand("TaskId"))
export type TaskId = typeof TaskId.Type

/** Identifier of a membership: one user's role in one workspace. */
export const MembershipId = prefixedId("mem", "Membership identifier").pipe(Schema.brand("MembershipId"))
export type MembershipId = typeof MembershipId.Type

/** Identifier of an invitation (never its token). */
export const InvitationId = prefixedId("inv", "Invitation identifier").pipe(Schema.brand("InvitationId"))
export type InvitationId = typeof InvitationId.Type

/** Identifier of a member session (never one of its tokens). */
export const SessionId = prefixedId("ses", "Session identifier").pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

/** Identifier of a schedule: recurring AI work on a cron. */
export const ScheduleId = prefixedId("sch", "Schedule identifier").pipe(Schema.brand("ScheduleId"))
export type ScheduleId = typeof ScheduleId.Type

/** Identifier of an in-app purchase (App Store or Google Play). */
export const PurchaseId = prefixedId("pur", "Purchase identifier").pipe(Schema.brand("PurchaseId"))
export type PurchaseId = typeof PurchaseId.Type

/** Identifier of a store notification held in the inbox. */
export const StoreNotificationId = prefixedId("sn", "Store notification identifier").pipe(Schema.brand("StoreNotificationId"))
export type StoreNotificationId = typeof StoreNotificationId.Type

/** Identifier of a custom domain claimed by a workspace. */
export const DomainId = prefixedId("dom", "Custom domain identifier").pipe(Schema.brand("DomainId"))
export type DomainId = typeof DomainId.Type

/** Identifier of an outgoing mail message (one per change that mails someone). */
export const MailMessageId = prefixedId("eml", "Mail message identifier").pipe(Schema.brand("MailMessageId"))
export type MailMessageId = typeof MailMessageId.Type

/** Identifier of a one-time account token (email verification, password reset), never the token itself. */
export const AccountTokenId = prefixedId("tok", "Account token identifier").pipe(Schema.brand("AccountTokenId"))
export type AccountTokenId = typeof AccountTokenId.Type

/** The id prefixes the design reserves, one per kind of record. */
export type IdPrefix = "ws" | "usr" | "mem" | "key" | "inv" | "whe" | "evt" | "msg" | "att" | "task" | "aud" | "ses" | "dom" | "eml" | "tok" | "fr" | "dev" | "push" | "sch" | "pur" | "sn" | "prr"

/** Identifier of a feature request on the public board. */
export const FeatureRequestId = prefixedId("fr", "Feature request identifier").pipe(Schema.brand("FeatureRequestId"))
export type FeatureRequestId = typeof FeatureRequestId.Type

/** Identifier of a registered push device (the app's installation, for one user). */
export const PushDeviceId = prefixedId("dev", "Push device identifier").pipe(Schema.brand("PushDeviceId"))
export type PushDeviceId = typeof PushDeviceId.Type

/** Identifier of one push message (one notification to one device). */
export const PushMessageId = prefixedId("push", "Push message identifier").pipe(Schema.brand("PushMessageId"))
export type PushMessageId = typeof PushMessageId.Type
