import { ApiKeyId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor, PageQuery } from "./page-query.ts"

/** One `/api/v1` request made with a key of the workspace: what happened, never a credential, a query or a body. */
export const RequestLogView = Schema.Struct({
  id: Schema.String.annotate({ description: "Position of the line in the log (digits)" }),
  keyId: ApiKeyId,
  method: Schema.String.annotate({ examples: ["GET"] }),
  route: Schema.String.annotate({ description: "The route template, not the raw path", examples: ["/api/v1/webhook-endpoints/:id"] }),
  status: Schema.Int.annotate({ description: "HTTP status of the answer", examples: [200] }),
  durationMs: Schema.Number.annotate({ description: "Time to answer, in milliseconds", examples: [3.25] }),
  requestId: Schema.String.annotate({ description: "The answer's `x-request-id`" }),
  createdAt: Schema.String.annotate({ format: "date-time", description: "When the answer left, ISO-8601 UTC" })
}).annotate({ identifier: "RequestLogLine" })
export type RequestLogView = typeof RequestLogView.Type

/** One page of the request log, newest first. */
export const RequestLogList = Schema.Struct({ data: Schema.Array(RequestLogView), nextCursor: NextCursor }).annotate({ identifier: "RequestLogList" })

/** `GET /api/mobile/request-logs` narrows by key, status and request id, besides the page. */
export const RequestLogQuery = {
  ...PageQuery,
  keyId: Schema.optional(ApiKeyId).annotateKey({ description: "Only this key's requests" }),
  status: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))).annotateKey({ description: "Only answers with this HTTP status" }),
  requestId: Schema.optional(Schema.String.check(Schema.isPattern(/^[A-Za-z0-9._-]{1,128}$/))).annotateKey({
    description: "Only the request with this `x-request-id`"
  })
}
