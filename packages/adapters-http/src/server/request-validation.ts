import { InvalidInput } from "@atrium/domain"
import { Effect } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { RequestValidation } from "../contract/security.ts"
import { issuesOf } from "./schema-issues.ts"

/**
 * The `RequestValidation` middleware: a request that fails its schema is 400 `invalid_request` naming each failed
 * check; a response that fails its own schema is a defect (500, logged by the envelope).
 */
export const RequestValidationLive = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error) =>
  error.kind === "Body" || error.kind === "ResponseHeaders"
    ? Effect.die(error)
    : Effect.fail(new InvalidInput({ detail: "Request validation failed", errors: issuesOf(error) })))
