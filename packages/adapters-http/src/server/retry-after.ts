import { RateLimited } from "@atrium/domain"
import { Effect } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * A domain rule's 429 (a check asked for too soon) answers `Retry-After` like the front door's limits do. For
 * `Effect.tapError`: any other failure passes untouched.
 */
export const retryAfterFor = (error: unknown): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> =>
  error instanceof RateLimited
    ? HttpEffect.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(error.retryAfter)))
    )
    : Effect.void
