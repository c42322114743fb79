import { HttpServerResponse, ProblemDetails } from "effect/http"
import { problemType } from "@atrium/client"

/** The code and title of the failures the envelope answers itself (no route, wrong method, body too large, defects). */
const byStatus: ReadonlyMap<number, readonly [code: string, title: string]> = new Map([
  [400, ["invalid_request", "Invalid request"]],
  [401, ["missing_credentials", "Unauthenticated"]],
  [403, ["forbidden", "Forbidden"]],
  [404, ["not_found", "Not found"]],
  [405, ["method_not_allowed", "Method not allowed"]],
  [406, ["not_acceptable", "Not acceptable"]],
  [409, ["conflict", "Conflict"]],
  [412, ["precondition_failed", "Precondition failed"]],
  [413, ["payload_too_large", "Payload too large"]],
  [415, ["unsupported_media_type", "Unsupported media type"]],
  [426, ["upgrade_required", "Upgrade required"]],
  [429, ["rate_limited", "Too many requests"]],
  [500, ["internal_error", "Internal error"]],
  [503, ["unavailable", "Service unavailable"]]
])

const describe = (status: number): readonly [code: string, title: string] =>
  byStatus.get(status) ?? (status >= 500 ? ["internal_error", "Internal error"] : ["invalid_request", "Invalid request"])

/** A problem response the envelope builds itself, with our `type` URI convention and the request id. */
export const problemResponse = (
  status: number,
  requestId: string,
  options?: { readonly code?: string | undefined; readonly detail?: string | undefined; readonly headers?: Record<string, string> | undefined }
) => {
  const [defaultCode, title] = describe(status)
  const code = options?.code ?? defaultCode
  const problem: Record<string, unknown> = { type: problemType(code), title, status, code }
  if (options?.detail !== undefined) problem.detail = options.detail
  problem.requestId = requestId
  return HttpServerResponse.text(JSON.stringify(problem), {
    status,
    contentType: ProblemDetails.contentType,
    headers: { "x-request-id": requestId, ...options?.headers }
  })
}
