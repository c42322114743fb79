import { ProviderError } from "@atrium/domain"
import type { HttpClientError } from "effect/http/HttpClientError"

// Every message here is fixed text plus at most a status code: provider error bodies and client errors can echo
// the request (headers included) or part of the key, and this message is shown to the workspace.

/** No answer within the configured timeout: worth retrying. */
export const providerTimedOut = (): ProviderError =>
  new ProviderError({ code: "provider_timeout", retryable: true, message: "The AI provider did not answer in time" })

/** Classifies a non-2xx status: 429 rate limited, 401/403 auth, other 4xx rejected, 5xx unavailable. */
export const statusFailure = (status: number): ProviderError => {
  if (status === 429) {
    return new ProviderError({ code: "provider_rate_limited", retryable: true, message: "The AI provider is rate limiting requests (429)" })
  }
  if (status === 401 || status === 403) {
    return new ProviderError({ code: "provider_auth", retryable: false, message: `The AI provider refused the configured credentials (${status})` })
  }
  if (status >= 400 && status < 500) {
    return new ProviderError({ code: "provider_rejected", retryable: false, message: `The AI provider rejected the request (${status})` })
  }
  if (status >= 500) {
    return new ProviderError({ code: "provider_unavailable", retryable: true, message: `The AI provider is unavailable (${status})` })
  }
  return new ProviderError({ code: "provider_error", retryable: false, message: `The AI provider answered with unexpected status ${status}` })
}

/** A 2xx answer that is not a chat completion. */
export const malformedResponse = (): ProviderError =>
  new ProviderError({ code: "provider_error", retryable: false, message: "The AI provider sent a malformed response" })

/** A request that could not be built or sent (e.g. a body that does not encode). */
export const unsendableRequest = (): ProviderError =>
  new ProviderError({ code: "provider_error", retryable: false, message: "The request to the AI provider could not be sent" })

/** Classifies a request that got no response; the client error itself (which holds the request) is dropped. */
export const transportFailure = (error: HttpClientError): ProviderError => {
  switch (error.reason._tag) {
    case "TransportError":
      return new ProviderError({ code: "provider_unavailable", retryable: true, message: "The AI provider could not be reached" })
    case "InvalidUrlError":
      return new ProviderError({ code: "provider_error", retryable: false, message: "The AI provider URL is invalid" })
    default:
      return unsendableRequest()
  }
}
