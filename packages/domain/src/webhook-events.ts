import { Schema } from "effect"
import { ApiKeyView } from "./api-key-view.ts"
import { EntitlementSource, Feature } from "./entitlement.ts"
import { EventId, WorkspaceId } from "./ids.ts"

/** A catalog entry: the event type, what it means, and its payload schema. */
export interface EventDefinition<Type extends string, Data extends Schema.Top> {
  readonly type: Type
  readonly description: string
  readonly data: Data
}

const define = <const Type extends string, Data extends Schema.Top>(
  type: Type,
  description: string,
  data: Data
): EventDefinition<Type, Data> => ({ type, description, data })

const IsoTime = Schema.String.annotate({ format: "date-time", description: "ISO-8601 UTC time" })
const Role = Schema.Literals(["owner", "admin", "member"])

const MemberSummary = Schema.Struct({
  id: Schema.String.annotate({ description: "Membership id (mem_…)" }),
  userId: Schema.String.annotate({ description: "User id (usr_…)" }),
  role: Role
}).annotate({ identifier: "MemberSummary" })

const InvitationSummary = Schema.Struct({
  id: Schema.String.annotate({ description: "Invitation id (inv_…)" }),
  email: Schema.String,
  role: Role,
  expiresAt: IsoTime
}).annotate({ identifier: "InvitationSummary" })

const TaskUsage = Schema.Struct({
  inputTokens: Schema.Int,
  outputTokens: Schema.Int,
  costMicros: Schema.Int.annotate({ description: "Cost in micro-USD" })
})

const EntitlementChange = Schema.Struct({
  feature: Feature,
  source: EntitlementSource,
  expiresAt: Schema.NullOr(IsoTime)
})

/** The event types as a schema: the catalog below must define exactly these. */
export const EventType = Schema.Literals([
  "api_key.created",
  "api_key.revoked",
  "ai_task.succeeded",
  "ai_task.failed",
  "member.joined",
  "member.removed",
  "member.role_changed",
  "invitation.created",
  "invitation.accepted",
  "entitlement.granted",
  "entitlement.revoked",
  "usage.cap_reached",
  "webhook_endpoint.disabled",
  "webhook.test"
]).annotate({ identifier: "EventType", description: "Event type from the catalog (`GET /api/v1/event-types`)" })
/** The names of all catalog event types. */
export type EventType = typeof EventType.Type

/** Every event Atrium emits, with a description and a payload schema. Payloads never carry secrets. */
export const eventCatalog = {
  "api_key.created": define("api_key.created", "An API key was created in the workspace (its secret is never included).", Schema.Struct({ apiKey: ApiKeyView })),
  "api_key.revoked": define("api_key.revoked", "An API key was revoked; it stops working at once.", Schema.Struct({ apiKey: ApiKeyView })),
  "ai_task.succeeded": define(
    "ai_task.succeeded",
    "An AI task finished with output; usage and cost are final.",
    Schema.Struct({ task: Schema.Struct({ id: Schema.String, model: Schema.String, status: Schema.Literal("succeeded"), usage: TaskUsage, finishedAt: IsoTime }) })
  ),
  "ai_task.failed": define(
    "ai_task.failed",
    "An AI task failed; failed tasks cost nothing.",
    Schema.Struct({
      task: Schema.Struct({
        id: Schema.String,
        model: Schema.String,
        status: Schema.Literal("failed"),
        error: Schema.Struct({ code: Schema.String, message: Schema.String }),
        finishedAt: IsoTime
      })
    })
  ),
  "member.joined": define("member.joined", "A user joined the workspace.", Schema.Struct({ member: MemberSummary })),
  "member.removed": define("member.removed", "A member was removed from the workspace.", Schema.Struct({ member: MemberSummary })),
  "member.role_changed": define(
    "member.role_changed",
    "A member's role changed.",
    Schema.Struct({ member: MemberSummary, previousRole: Role })
  ),
  "invitation.created": define("invitation.created", "Someone was invited to the workspace (the invitation token is never included).", Schema.Struct({ invitation: InvitationSummary })),
  "invitation.accepted": define(
    "invitation.accepted",
    "An invitation was accepted and its user joined.",
    Schema.Struct({ invitation: InvitationSummary, member: MemberSummary })
  ),
  "entitlement.granted": define("entitlement.granted", "The workspace was granted a feature.", EntitlementChange),
  "entitlement.revoked": define("entitlement.revoked", "A feature grant was revoked.", EntitlementChange),
  "usage.cap_reached": define(
    "usage.cap_reached",
    "A usage meter reached its monthly cap; sent once per month and cap.",
    Schema.Struct({
      meter: Schema.Literals(["ai_spend", "ai_tasks"]),
      cap: Schema.Int,
      used: Schema.Int,
      month: Schema.String.annotate({ description: "UTC month, YYYY-MM" })
    })
  ),
  "webhook_endpoint.disabled": define(
    "webhook_endpoint.disabled",
    "A webhook endpoint was disabled (continuous failures, 410 Gone, or by a person); sent to the workspace's other endpoints.",
    Schema.Struct({
      endpoint: Schema.Struct({ id: Schema.String, url: Schema.String, reason: Schema.String, disabledAt: IsoTime })
    })
  ),
  "webhook.test": define(
    "webhook.test",
    "A test event sent on request to one endpoint.",
    Schema.Struct({ message: Schema.String, endpointId: Schema.String })
  )
} as const satisfies { readonly [K in EventType]: EventDefinition<K, Schema.Top> }

/** The payload type of one event type. */
export type EventData<T extends EventType> = (typeof eventCatalog)[T]["data"]["Type"]

/** An event as the outbox stores it and webhooks carry it: `{ id, type, createdAt, workspaceId, data }`. */
export class DomainEvent extends Schema.Class<DomainEvent>("@atrium/domain/DomainEvent")({
  id: EventId,
  type: EventType,
  workspaceId: WorkspaceId,
  createdAt: Schema.DateTimeUtc,
  data: Schema.Unknown
}) {}
