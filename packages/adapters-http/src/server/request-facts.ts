import type { ApiKeyId, WorkspaceId } from "@atrium/domain"
import { Context, Effect } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"

/** What the envelope learns about a request while it runs, from the gate that knows it. */
export interface RequestFacts {
  /** The route template (`/api/v1/webhook-endpoints/:id`), once a route took the request. */
  route: string | undefined
  /** The id of who called (an API key id or a session id), once authenticated; never a credential. */
  principal: string | undefined
  /** The workspace the caller acts in, once authenticated. */
  workspace: WorkspaceId | undefined
  /** The API key that called, when a key did (the request log is per key). */
  key: ApiKeyId | undefined
  /**
   * Headers for whatever response leaves (the request id, RateLimit, Cache-Control, WWW-Authenticate): one record per
   * request, added to in place, which the envelope sets on the response.
   */
  readonly headers: Record<string, string>
}

/** The facts of the request being served; the envelope provides a fresh record per request. */
export const CurrentRequestFacts = Context.Reference<RequestFacts | undefined>("@atrium/adapters-http/CurrentRequestFacts", {
  defaultValue: () => undefined
})

/** Notes headers for the response of the request these facts belong to. */
const noteHeaders = (facts: RequestFacts, headers: Record<string, string>): void => {
  Object.assign(facts.headers, headers)
}

/**
 * Adds `headers` to the response of the request whose context this is, success or refusal: a note on the request's
 * facts (no per-request handler to run), or a pre-response handler where no envelope serves the request.
 */
export const respondWithUnsafe = (context: Context.Context<never>, headers: Record<string, string>): void => {
  const facts = Context.get(context, CurrentRequestFacts)
  if (facts === undefined) {
    HttpEffect.appendPreResponseHandlerUnsafe(context, (_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))
  } else {
    noteHeaders(facts, headers)
  }
}

/** `respondWithUnsafe` for the current request, as an effect. */
export const respondWith = (headers: Record<string, string>): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    respondWithUnsafe(fiber.context, headers)
    return Effect.void
  })
