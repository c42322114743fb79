import { Effect } from "effect"
import { type AnyPrincipal, authorize, type Forbidden, InsufficientScope, memberActor, scopeAllows } from "../access/index.ts"
import type { Actor } from "../shared/index.ts"

/** Reading schedules, or changing them (create, update, delete, pause, resume, run now). */
export type ScheduleAccess = "read" | "write"

/**
 * The schedules policy, checked by the service itself: keys need `read` / `schedules:write`, members need to be a
 * member to read and an admin to change.
 */
export const authorizeSchedules = (principal: AnyPrincipal, access: ScheduleAccess): Effect.Effect<void, Forbidden | InsufficientScope> => {
  if (principal._tag === "ApiKeyPrincipal") {
    const required = access === "read" ? "read" : "schedules:write"
    return scopeAllows(principal.scopes, required) ? Effect.void : Effect.fail(new InsufficientScope({ requiredScope: required }))
  }
  return authorize(principal, access === "read" ? "workspace.read" : "schedule.manage")
}

/** The audit actor (and, for a new schedule, the run-as actor) of a principal. */
export const actorOf = (principal: AnyPrincipal): Actor =>
  principal._tag === "ApiKeyPrincipal" ? { type: "api_key", id: principal.keyId } : memberActor(principal)

