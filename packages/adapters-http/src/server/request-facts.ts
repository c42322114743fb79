import { Context } from "effect"

/** What the access log learns about a request while it runs, from the middleware that knows it. */
export interface RequestFacts {
  /** The route template (`/api/v1/webhook-endpoints/:id`), once a route took the request. */
  route: string | undefined
  /** The id of who called (an API key id or a session id), once authenticated; never a credential. */
  principal: string | undefined
}

/** The facts of the request being served; the envelope provides a fresh record per request. */
export const CurrentRequestFacts = Context.Reference<RequestFacts | undefined>("@atrium/adapters-http/CurrentRequestFacts", {
  defaultValue: () => undefined
})
