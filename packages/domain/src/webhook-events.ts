import { Schema } from "effect"
import { ApiKeyView } from "./api-key-view.ts"
import { EntitlementSource, Feature } from "./entitlement.ts"
import { EventId, WorkspaceId } from "./ids.ts"

/** A catalog entry: the event type, what it means, and its payload schema. */
interface EventDefinition<Type extends string, Data extends Schema.Top> {
  readonly type: Type
  readonly description: string
  readonly data: Data
}

const define = <const Type extends string, Data extends Schema.Top>(type: Type, description: string, data: Data): EventDefinition<Type, Data> => ({
  type,
  description,
  data
})

/** The event types as a schema: the catalog below must define exactly these. */
export const EventType = Schema.Literals(["api_key.created", "api_key.revoked", "entitlement.granted"]).annotate({
  description: "Event type from the catalog (`GET /api/v1/event-types`)"
})
/** The names of all catalog event types. */
export type EventType = typeof EventType.Type

/** Every event Atrium emits, with a description and a payload schema. Payloads never carry secrets. */
export const eventCatalog = {
  "api_key.created": define("api_key.created", "An API key was created in the workspace.", Schema.Struct({ apiKey: ApiKeyView })),
  "api_key.revoked": define("api_key.revoked", "An API key was revoked; it stops working at once.", Schema.Struct({ apiKey: ApiKeyView })),
  "entitlement.granted": define(
    "entitlement.granted",
    "The workspace was granted a feature.",
    Schema.Struct({
      feature: Feature,
      source: EntitlementSource,
      expiresAt: Schema.NullOr(Schema.String.annotate({ format: "date-time" }))
    })
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
