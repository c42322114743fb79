import { Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "./api.ts"

/** The typed Effect client of the whole contract (every group of `Api`: v1, auth, mobile). */
export type AtriumClient = HttpApiClient.ForApi<typeof Api>

/**
 * A ready typed client of the Atrium contract for Effect users: `baseUrl` (e.g. `https://api.example.com`), and the
 * bearer `token` (an API key for `/api/v1`, a session access token for `/api/mobile` and `/api/auth`) read per request.
 * Failures come back as the domain's own errors (`NotFound`, `InsufficientScope`, `SessionRejected`, …).
 */
export const makeAtriumClient = (options: {
  readonly baseUrl: string | URL
  readonly token?: Effect.Effect<string | undefined> | undefined
}) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      options.token === undefined ? client : HttpClient.mapRequestEffect(client, (request) =>
        Effect.map(options.token ?? Effect.succeed(undefined), (token) =>
          token === undefined ? request : HttpClientRequest.bearerToken(request, token)))
  })
