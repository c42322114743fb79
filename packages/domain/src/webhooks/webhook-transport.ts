import { Context, type Duration, type Effect, Schema } from "effect"

/** Why an attempt did not succeed; recorded with every failed attempt. */
export const AttemptErrorKind = Schema.Literals(["timeout", "refused", "dns", "tls", "blocked", "non_2xx", "network"]).annotate({
  description: "Why the attempt failed: timeout, connection refused, DNS failure, TLS failure, destination blocked (SSRF guard), a non-2xx answer, or another network error"
})
export type AttemptErrorKind = typeof AttemptErrorKind.Type

/** One signed POST to a subscriber's endpoint. */
export interface TransportRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Whole-attempt limit (default 15 s). */
  readonly timeout: Duration.Duration
  /** Limit for establishing the connection (default 5 s). */
  readonly connectTimeout: Duration.Duration
}

/** What happened on the wire; the transport never fails, it reports. */
export interface TransportResult {
  /** A 2xx status arrived within the timeout. */
  readonly ok: boolean
  readonly errorKind: AttemptErrorKind | null
  readonly statusCode: number | null
  /** Response headers of note (content-type, retry-after, …), lower-cased names. */
  readonly responseHeaders: Readonly<Record<string, string>>
  /** At most the first 4 KiB of the response body, as text (NUL, which no database text holds, as U+FFFD). */
  readonly responseBody: string
  /** `Retry-After` of a 429/503 answer, in seconds, when present and parseable. */
  readonly retryAfterSeconds: number | null
  readonly durationMillis: number
  /** The address connected to (after the SSRF check), for the attempt record. */
  readonly remoteAddress: string | null
}

/** Port: sends one webhook attempt, guarding against SSRF and following no redirects. */
export class WebhookTransport extends Context.Service<WebhookTransport, {
  readonly send: (request: TransportRequest) => Effect.Effect<TransportResult>
  /** Checks a subscription URL before it is saved: scheme allowed, host resolves only to allowed addresses. */
  readonly checkDestination: (url: string) => Effect.Effect<DestinationCheck>
}>()("@atrium/domain/WebhookTransport") {}

/** The verdict on a destination URL. */
export type DestinationCheck =
  | { readonly _tag: "Allowed"; readonly addresses: ReadonlyArray<string> }
  /** `reason` is fit for the caller (never a resolved address); `detail` is for the server log only. */
  | { readonly _tag: "Refused"; readonly reason: string; readonly detail?: string | undefined }
