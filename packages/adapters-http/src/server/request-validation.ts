import { InvalidInput, NotFound } from "@atrium/domain"
import { Effect } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { RequestValidation } from "../contract/security.ts"
import { issuesOf } from "./schema-issues.ts"

// Path parameters are ids: one that cannot exist names nothing, like an unknown one (no shape oracle either).
const noSuchId = new NotFound({ resource: "resource with this id" })

/**
 * The `RequestValidation` middleware (it runs after authentication): a malformed id in the path is 404 `not_found`,
 * any other request that fails its schema is 400 `invalid_request` naming each failed check; a response that fails
 * its own schema is a defect (500, logged by the envelope).
 */
export const RequestValidationLive = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error) => {
  switch (error.kind) {
    case "Body":
    case "ResponseHeaders":
      return Effect.die(error)
    case "Params":
      return Effect.fail(noSuchId)
    default:
      return Effect.fail(new InvalidInput({ detail: "Request validation failed", errors: issuesOf(error) }))
  }
})
