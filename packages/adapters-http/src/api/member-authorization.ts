import type { CurrentMember } from "@atrium/domain"
import { HttpApiMiddleware } from "effect/http-api"
import { ForbiddenProblem } from "./identity-problems.ts"

/** Applies the domain's role policy to each endpoint's `RequiredAction` (403 `forbidden`). */
export class MemberAuthorization extends HttpApiMiddleware.Service<MemberAuthorization, {
  requires: CurrentMember
}>()("@atrium/adapters-http/MemberAuthorization", {
  error: ForbiddenProblem
}) {}
