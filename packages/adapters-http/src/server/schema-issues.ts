import type { InputIssue } from "@atrium/domain"
import { SchemaIssue } from "effect"
import type { HttpApiError } from "effect/http-api"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const segmentOf = (segment: PropertyKey | { readonly key: PropertyKey }): string | number => {
  const key = typeof segment === "object" ? segment.key : segment
  return typeof key === "number" ? key : String(key)
}

/** The failed checks of a request decoding failure, each at its path prefixed by the request slot (`query`, `payload`…). */
export const issuesOf = (error: HttpApiError.HttpApiSchemaError): ReadonlyArray<InputIssue> => {
  const slot = error.kind.toLowerCase()
  return formatIssues(error.cause.issue).issues.map((issue) => ({
    path: [slot, ...(issue.path ?? []).map(segmentOf)],
    message: issue.message
  }))
}
