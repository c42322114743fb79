import { Duration, Schema } from "effect"
import { ApiKeyId, WorkspaceId } from "../shared/index.ts"

/** How long a workspace's request logs are kept. */
export const requestLogRetention = Duration.days(7)

/** One `/api/v1` request made with an API key, as it is written: what happened, never a credential, query or body. */
export interface RequestLogRecord {
  readonly workspaceId: WorkspaceId
  readonly keyId: ApiKeyId
  readonly method: string
  /** The route template (`/api/v1/webhook-endpoints/:id`), never the raw path. */
  readonly route: string
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
  /** When the response left, epoch milliseconds. */
  readonly at: number
}

/** One stored request-log line; `id` is a sequence number (digits), unique in the store. */
export class RequestLogEntry extends Schema.Class<RequestLogEntry>("@atrium/domain/RequestLogEntry")({
  id: Schema.String.check(Schema.isPattern(/^[0-9]{1,19}$/)),
  workspaceId: WorkspaceId,
  keyId: ApiKeyId,
  method: Schema.String,
  route: Schema.String,
  status: Schema.Int,
  durationMs: Schema.Number,
  requestId: Schema.String,
  createdAt: Schema.DateTimeUtc
}) {}

/** What a request-log list is narrowed to; every field optional. */
export interface RequestLogFilter {
  readonly keyId?: ApiKeyId | undefined
  readonly status?: number | undefined
  readonly requestId?: string | undefined
}
