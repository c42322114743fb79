import { type InputIssue, InvalidInput, NotFound } from "@atrium/domain"
import { Effect, SchemaIssue } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { unhandled } from "effect/Types"
import { HttpApiError } from "effect/http-api"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const segmentOf = (segment: PropertyKey | { readonly key: PropertyKey }): string | number => {
  const key = typeof segment === "object" ? segment.key : segment
  return typeof key === "number" ? key : String(key)
}

/** The failed checks of a request decoding failure, each at its path prefixed by the request slot (`query`, `payload`…). */
const issuesOf = (error: HttpApiError.HttpApiSchemaError): ReadonlyArray<InputIssue> => {
  const slot = error.kind.toLowerCase()
  return formatIssues(error.cause.issue).issues.map((issue) => ({
    path: [slot, ...(issue.path ?? []).map(segmentOf)],
    message: issue.message
  }))
}

// Path parameters are ids: one that cannot exist names nothing, like an unknown one (no shape oracle either).
const noSuchId = new NotFound({ resource: "resource with this id" })

const refuse = (error: HttpApiError.HttpApiSchemaError) => {
  switch (error.kind) {
    case "Body":
    case "ResponseHeaders":
      return Effect.die(error)
    case "Params":
      return Effect.fail(noSuchId)
    default:
      return Effect.fail(new InvalidInput({ detail: "Request validation failed", errors: issuesOf(error) }))
  }
}

/**
 * A route's handling with its decoding failures answered: a malformed id in the path is 404 `not_found`, any other
 * request that fails its schema 400 `invalid_request` naming each failed check; a response that fails its own schema
 * is a defect (500, logged by the envelope).
 */
export const validated = <R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | InvalidInput | NotFound, R> =>
  Effect.catch(
    httpEffect,
    (error): Effect.Effect<never, unhandled | InvalidInput | NotFound> => HttpApiError.HttpApiSchemaError.is(error) ? refuse(error) : Effect.fail(error)
  )
