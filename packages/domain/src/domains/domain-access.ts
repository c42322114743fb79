import { Effect } from "effect"
import { type AnyPrincipal, authorize, type Forbidden, InsufficientScope, memberActor, scopeAllows } from "../access/index.ts"
import type { Actor } from "../shared/index.ts"

/** Reading domains: any member; a key with `read`. */
export const permitDomainRead = (principal: AnyPrincipal): Effect.Effect<void, Forbidden | InsufficientScope> =>
  principal._tag === "SessionPrincipal"
    ? authorize(principal, "workspace.read")
    : scopeAllows(principal.scopes, "read")
    ? Effect.void
    : Effect.fail(new InsufficientScope({ requiredScope: "read" }))

/** Adding, removing and checking domains: admins and owners; a key only with `write` (there is no narrower scope). */
export const permitDomainChange = (principal: AnyPrincipal): Effect.Effect<void, Forbidden | InsufficientScope> =>
  principal._tag === "SessionPrincipal"
    ? authorize(principal, "domain.manage")
    : scopeAllows(principal.scopes, "write")
    ? Effect.void
    : Effect.fail(new InsufficientScope({ requiredScope: "write" }))

/** The audit actor of any principal. */
export const actorOf = (principal: AnyPrincipal): Actor =>
  principal._tag === "SessionPrincipal" ? memberActor(principal) : { type: "api_key", id: principal.keyId }
