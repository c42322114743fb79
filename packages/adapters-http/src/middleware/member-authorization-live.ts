import { authorize, CurrentMember } from "@atrium/domain"
import { Effect, Layer } from "effect"
import { MemberAuthorization } from "../api/member-authorization.ts"
import { requiredActionOf } from "../api/required-action.ts"
import { forbiddenProblem } from "./session-refusals.ts"

/** The `MemberAuthorization` middleware: the domain's one role policy applied to each endpoint's `RequiredAction`. */
export const MemberAuthorizationLive = Layer.succeed(
  MemberAuthorization,
  MemberAuthorization.of(Effect.fnUntraced(function*(httpEffect, { endpoint, group }) {
    const member = yield* CurrentMember
    yield* authorize(member, requiredActionOf(endpoint, group)).pipe(Effect.catchTag("Forbidden", forbiddenProblem))
    return yield* httpEffect
  }))
)
