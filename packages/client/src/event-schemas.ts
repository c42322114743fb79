import { EventId, EventType, WorkspaceId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

/** An event as webhooks carry it: `{ id, type, createdAt, workspaceId, data }`. */
export const EventView = Schema.Struct({
  id: EventId,
  type: Schema.String.annotate({ description: "Event type from the catalog (`GET /api/v1/event-types`)" }),
  createdAt: Schema.String.annotate({ format: "date-time", description: "When it happened, ISO-8601 UTC" }),
  workspaceId: WorkspaceId,
  data: Schema.Unknown.annotate({ description: "The payload; its JSON Schema is listed by `GET /api/v1/event-types`" })
}).annotate({ identifier: "Event", description: "Something that happened in the workspace" })
export type EventView = typeof EventView.Type

/** One page of events, newest first. */
export const EventList = Schema.Struct({
  data: Schema.Array(EventView),
  nextCursor: NextCursor
}).annotate({ identifier: "EventList" })

/** One catalog entry: the type, what it means, and the JSON Schema of its `data`. */
export const EventTypeView = Schema.Struct({
  type: EventType,
  description: Schema.String,
  schema: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "JSON Schema (draft 2020-12) of the event's `data`" })
}).annotate({ identifier: "EventTypeDescription" })
export type EventTypeView = typeof EventTypeView.Type

/** The whole event catalog. */
export const EventTypeList = Schema.Struct({
  data: Schema.Array(EventTypeView)
}).annotate({ identifier: "EventTypeList" })
