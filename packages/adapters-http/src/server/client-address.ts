import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"

/** The client address a throttle counts by: the socket's peer (no proxy header is trusted here). */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest): string =>
  Option.getOrElse(request.remoteAddress, () => "unknown")
