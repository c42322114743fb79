import { memberActor } from "../access/index.ts"
import type { Change } from "../audit/index.ts"
import type { Actor } from "../shared/index.ts"
import { type Session, SessionRevokeReason } from "./session.ts"

/** The audit action a session's end records: `session.` and its revoke reason (`session.signed_out`, …). */
export type SessionEndedAction = `session.${SessionRevokeReason}`

/** The audit action of a session that ended for `reason`. */
export const sessionEndedAction = (reason: SessionRevokeReason): SessionEndedAction => `session.${reason}`

/**
 * Every audit action that records the end of a session (its target is the session), whatever the reason: built from the
 * reasons themselves, so a reason added later is a session ending everywhere at once.
 */
export const sessionEndedActions: ReadonlySet<string> = new Set(SessionRevokeReason.literals.map(sessionEndedAction))

/**
 * The change a session's end records, in the transaction that revokes it, so areas holding per-session state (push
 * devices) drop it with the session. Audited in the session's active workspace, by its user unless told otherwise.
 */
export const sessionEnded = (session: Session, reason: SessionRevokeReason, actor: Actor = memberActor(session)): Change => ({
  workspaceId: session.activeWorkspaceId,
  actor,
  action: sessionEndedAction(reason),
  target: session.id
})
