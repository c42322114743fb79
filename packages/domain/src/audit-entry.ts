import { Schema } from "effect"
import { Actor } from "./actor.ts"
import { AuditEntryId, WorkspaceId } from "./ids.ts"

/** One line of a workspace's audit log: who did what to which record, when. */
export class AuditEntry extends Schema.Class<AuditEntry>("@atrium/domain/AuditEntry")({
  id: AuditEntryId,
  workspaceId: WorkspaceId,
  actor: Actor,
  action: Schema.String.annotate({ examples: ["api_key.revoked"] }),
  target: Schema.String.annotate({ description: "Id of the record acted on" }),
  createdAt: Schema.DateTimeUtc,
  requestId: Schema.OptionFromNullOr(Schema.String)
}) {}
