import { Actor, AuditEntryId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

/** One audit log line: who did what to which record, when, in which request. */
export const AuditEntryView = Schema.Struct({
  id: AuditEntryId,
  actor: Actor,
  action: Schema.String.annotate({ examples: ["member.role_changed"] }),
  target: Schema.String.annotate({ description: "Id of the record acted on" }),
  createdAt: Schema.String.annotate({ format: "date-time", description: "When, ISO-8601 UTC" }),
  requestId: Schema.NullOr(Schema.String).annotate({ description: "The `x-request-id` of the request that made the change" })
}).annotate({ identifier: "AuditEntry" })
export type AuditEntryView = typeof AuditEntryView.Type

/** One page of the audit log, newest first. */
export const AuditList = Schema.Struct({ data: Schema.Array(AuditEntryView), nextCursor: NextCursor }).annotate({ identifier: "AuditList" })
