import { CurrentRequestId } from "@atrium/domain"
import { Effect, Option, Schema, SchemaAST, SchemaTransformation } from "effect"
import { ProblemDetails } from "effect/http"
import { HttpApiSchema } from "effect/http-api"
import { problemTitle, problemType } from "./problem-catalog.ts"


/**
 * The RFC 9457 body every failure answers: the standard members, the stable `code`, the `requestId` (also the
 * `x-request-id` header) and the error's own members (`requiredScope`, `retryAfter`, `errors`…).
 */
const problemBody = <C extends Schema.Top>(code: C) =>
  Schema.StructWithRest(
    Schema.Struct({
      type: Schema.String,
      title: Schema.String,
      status: Schema.Int,
      code,
      detail: Schema.optionalKey(Schema.String),
      requestId: Schema.optionalKey(Schema.String.annotate({
        description: "Id of the request, also sent as the `x-request-id` header",
        examples: ["req_3f9a0c1e5b7d4a2f8e6c0b1d3a5f7e9c"]
      }))
    }),
    [Schema.Record(Schema.String, Schema.Unknown)]
  )

/** Any problem body, whatever its code. */
export const ProblemBody = problemBody(Schema.String.annotate({ description: "Stable error code" }))
export type ProblemBody = typeof ProblemBody.Type

/** How a domain error reads as a problem: the detail and extra members drawn from the error (its title is its code's, from the catalog). */
export interface ProblemRendering<E> {
  readonly detail?: ((error: E) => string | undefined) | undefined
  readonly extensions?: ((error: E) => Record<string, unknown>) | undefined
}

// Members of the problem object that the error's own encoding must not overwrite.
const standard: ReadonlySet<string> = new Set(["type", "title", "status", "requestId", "_tag"])

// The codes a `code` field admits: one literal, or a union of them.
const codesOf = (ast: SchemaAST.AST): ReadonlyArray<string> =>
  ast._tag === "Literal" ? (typeof ast.literal === "string" ? [ast.literal] : []) : ast._tag === "Union" ? ast.types.flatMap(codesOf) : []

/**
 * A domain tagged error (with `code` and `httpApiStatus`) as the contract's `application/problem+json` response.
 * Encoding adds the request id from the fiber (no body is ever re-parsed); decoding gives clients the domain error back.
 */
export const problem = <
  S extends Schema.Top & {
    readonly Type: { readonly code: string }
    readonly fields: { readonly _tag: Schema.tag<string>; readonly code: Schema.Top }
  }
>(
  error: S,
  rendering: ProblemRendering<S["Type"]>
) => {
  const declared: unknown = error.ast.annotations?.httpApiStatus
  const status = typeof declared === "number" ? declared : 500
  const tag = error.fields._tag.ast.literal
  const codes = codesOf(error.fields.code.ast)
  const encodeError = Schema.encodeUnknownEffect(error)
  const decodeError = Schema.decodeUnknownEffect(error)
  // The body documents the error's own codes (the OpenAPI document lists them); the rest stays open.
  const Body = problemBody(Schema.toEncoded(error.fields.code))
  const decodeBody = Schema.decodeUnknownEffect(Body)
  return Body.pipe(
    Schema.decodeTo(
      Schema.toType(error),
      SchemaTransformation.transformEffect({
        decode: (body) => {
          const fields: Record<string, unknown> = {}
          for (const [name, value] of Object.entries(body)) if (!standard.has(name)) fields[name] = value
          return decodeError({ ...fields, _tag: tag }).pipe(Effect.mapError((e) => e.issue))
        },
        encode: (value) =>
          Effect.gen(function*() {
            const encoded = yield* encodeError(value).pipe(Effect.mapError((e) => e.issue))
            const requestId = yield* CurrentRequestId
            const out: Record<string, unknown> = {
              type: problemType(value.code),
              title: problemTitle(value.code),
              status,
              code: value.code
            }
            const detail = rendering.detail?.(value)
            if (detail !== undefined) out.detail = detail
            if (typeof encoded === "object" && encoded !== null) {
              for (const [name, member] of Object.entries(encoded)) if (!standard.has(name)) out[name] = member
            }
            if (rendering.extensions !== undefined) Object.assign(out, rendering.extensions(value))
            if (Option.isSome(requestId)) out.requestId = requestId.value
            return yield* decodeBody(out).pipe(Effect.mapError((e) => e.issue))
          })
      })
    ),
    HttpApiSchema.asJson({ contentType: ProblemDetails.contentType })
  ).annotate({ description: problemTitle(codes[0] ?? String(tag)), httpApiStatus: status })
}
