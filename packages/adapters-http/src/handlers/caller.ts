import { type Actor, type AnyPrincipal, CurrentMember, CurrentPrincipal, memberActor, type Principal, type SessionPrincipal, type WorkspaceId } from "@atrium/domain"
import { CurrentAnyPrincipal } from "../api/key-or-session.ts"

/** Who acts, and in which workspace: always the principal's, never one named by the client. */
export interface Caller {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
}

/** The caller an API-key principal acts as. */
export const callerOf = (principal: Principal): Caller => ({
  workspaceId: principal.workspaceId,
  actor: { type: "api_key", id: principal.keyId }
})

/** The caller a member session acts as: the member, in the session's active workspace. */
export const callerOfMember = (member: SessionPrincipal): Caller => ({
  workspaceId: member.workspaceId,
  actor: memberActor(member)
})

/** The caller of either kind of principal. */
export const callerOfAny = (principal: AnyPrincipal): Caller =>
  principal._tag === "ApiKeyPrincipal" ? callerOf(principal) : callerOfMember(principal)

/** The caller of the API-key request being served. */
export const currentCaller = CurrentPrincipal.useSync(callerOf)

/** The caller of the member-session request being served. */
export const currentMemberCaller = CurrentMember.useSync(callerOfMember)

/** The caller of a request that accepts an API key or a member session. */
export const currentAnyCaller = CurrentAnyPrincipal.useSync(callerOfAny)
