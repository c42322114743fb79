import { HttpServerResponse, ProblemDetails } from "effect/http"
import { type EnvelopeCode, problemEntry, problemType } from "@atrium/client"

/** The code the envelope answers for a status it meets (no route, wrong method, body too large, defects). */
const byStatus: ReadonlyMap<number, EnvelopeCode> = new Map<number, EnvelopeCode>([
  [400, "invalid_request"],
  [401, "missing_credentials"],
  [403, "forbidden"],
  [404, "not_found"],
  [405, "method_not_allowed"],
  [406, "not_acceptable"],
  [409, "conflict"],
  [412, "precondition_failed"],
  [413, "payload_too_large"],
  [415, "unsupported_media_type"],
  [426, "upgrade_required"],
  [429, "rate_limited"],
  [500, "internal_error"],
  [503, "unavailable"]
])

const describe = (status: number): EnvelopeCode => byStatus.get(status) ?? (status >= 500 ? "internal_error" : "invalid_request")

/** A problem response the envelope builds itself, with our `type` URI convention and the request id. */
export const problemResponse = (
  status: number,
  requestId: string,
  options?: { readonly code?: EnvelopeCode | undefined; readonly detail?: string | undefined; readonly headers?: Record<string, string> | undefined }
) => {
  const code = options?.code ?? describe(status)
  const problem: Record<string, unknown> = { type: problemType(code), title: problemEntry(code).title, status, code }
  if (options?.detail !== undefined) problem.detail = options.detail
  problem.requestId = requestId
  return HttpServerResponse.text(JSON.stringify(problem), {
    status,
    contentType: ProblemDetails.contentType,
    headers: { "x-request-id": requestId, ...options?.headers }
  })
}
