import { Option } from "effect"
import { HttpBody, HttpServerResponse, ProblemDetails } from "effect/http"

/** The code and title a bare status gets when nothing more specific produced the problem. */
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
  [429, ["rate_limited", "Too many requests"]],
  [500, ["internal_error", "Internal error"]],
  [503, ["unavailable", "Service unavailable"]]
])

const describe = (status: number): readonly [code: string, title: string] =>
  byStatus.get(status) ?? (status >= 500 ? ["internal_error", "Internal error"] : ["invalid_request", "Invalid request"])

/** A problem object for a status and code, with our `type` URI convention. */
export const problemFor = (status: number, code?: string, detail?: string): Record<string, unknown> => {
  const [defaultCode, title] = describe(status)
  const problem: Record<string, unknown> = {
    type: `https://atrium.dev/problems/${code ?? defaultCode}`,
    title,
    status,
    code: code ?? defaultCode
  }
  if (detail !== undefined) problem.detail = detail
  return problem
}

const parseJson: (text: string) => Option.Option<unknown> = Option.liftThrowable((text: string): unknown => JSON.parse(text))

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The problem object a failed response carries, if its body is one. */
export const problemOf = (response: HttpServerResponse.HttpServerResponse): Record<string, unknown> | undefined => {
  const body = response.body
  if (body._tag !== "Uint8Array" || !body.contentType.startsWith(ProblemDetails.contentType)) return undefined
  const text = body.text ?? new TextDecoder().decode(body.body)
  return Option.getOrUndefined(Option.filter(parseJson(text), isRecord))
}

/** Replaces a response's body with a problem, keeping its status and headers. */
export const withProblemBody = (response: HttpServerResponse.HttpServerResponse, problem: Record<string, unknown>) =>
  HttpServerResponse.setBody(response, HttpBody.text(JSON.stringify(problem), ProblemDetails.contentType))

/** A fresh problem response. */
export const problemResponse = (status: number, problem: Record<string, unknown>, headers?: Record<string, string>) =>
  HttpServerResponse.text(JSON.stringify(problem), {
    status,
    contentType: ProblemDetails.contentType,
    ...(headers === undefined ? {} : { headers })
  })
