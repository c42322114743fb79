import { Schema } from "effect"
import { EventId, WorkspaceId } from "../shared/index.ts"

/** An event as the outbox stores it and webhooks carry it: `{ id, type, createdAt, workspaceId, data }`. */
export class DomainEvent extends Schema.Class<DomainEvent>("@atrium/domain/DomainEvent")({
  id: EventId,
  type: Schema.String,
  workspaceId: WorkspaceId,
  createdAt: Schema.DateTimeUtc,
  data: Schema.Unknown
}) {}
