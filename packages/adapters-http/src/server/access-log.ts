import type { ApiKeyId, WorkspaceId } from "@atrium/domain"
import { Context } from "effect"

/** One access-log entry: what happened to a request, never a credential, a query or a body. */
export interface AccessLogEntry {
  readonly method: string
  readonly route: string | null
  readonly status: number
  readonly durationMs: number
  readonly requestId: string
  readonly principalId: string | null
  /** The workspace the caller acted in, once authenticated. */
  readonly workspaceId: WorkspaceId | null
  /** The API key that called, when a key did. */
  readonly keyId: ApiKeyId | null
}

/**
 * Where access-log entries go when the host has a faster sink than Effect's logger (the app batches JSON lines to
 * stdout); unset, entries go through `Effect.logInfo` with the entry as annotations.
 */
export const AccessLogSink = Context.Reference<((entry: AccessLogEntry) => void) | undefined>("@atrium/adapters-http/AccessLogSink", {
  defaultValue: () => undefined
})
