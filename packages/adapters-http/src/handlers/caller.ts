import { type Actor, CurrentPrincipal, type Principal, type WorkspaceId } from "@atrium/domain"

/** Who acts, and in which workspace: always the principal's, never one named by the client. */
export interface Caller {
  readonly workspaceId: WorkspaceId
  readonly actor: Actor
}

/** The caller a principal acts as. */
export const callerOf = (principal: Principal): Caller => ({
  workspaceId: principal.workspaceId,
  actor: { type: "api_key", id: principal.keyId }
})

/** The caller of the request being served. */
export const currentCaller = CurrentPrincipal.useSync(callerOf)
