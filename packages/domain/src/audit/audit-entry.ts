import { Schema } from "effect"
import { Actor } from "../shared/index.ts"
import { AuditEntryId, WorkspaceId } from "../shared/index.ts"

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
