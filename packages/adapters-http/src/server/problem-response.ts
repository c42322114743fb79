import { HttpServerResponse, ProblemDetails } from "effect/http"
import { type EnvelopeCode, envelopeCodes, problemEntry, problemType } from "@atrium/client"

/** The code the envelope answers for a status it meets: the first envelope code the catalog lists with that status. */
const byStatus = new Map<number, EnvelopeCode>()
for (const code of envelopeCodes) if (!byStatus.has(problemEntry(code).status)) byStatus.set(problemEntry(code).status, code)

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
