import { HttpApiMiddleware } from "effect/http-api"

/** Marks every response of a group `Cache-Control: no-store`: they carry tokens and per-member data. */
export class NoStore extends HttpApiMiddleware.Service<NoStore>()("@atrium/adapters-http/NoStore") {}
