import { Invitations, Members, Role } from "@atrium/domain"
import { Console, DateTime, Effect, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { operatorIn, withDomain } from "./cli-support.ts"
import { resolveWorkspace, workspaceFlag } from "./cli-workspace.ts"

const emailFlag = Flag.String("email").pipe(Flag.withDescription("The person's email address"))
const roleFlag = Flag.Literals("role", Role.literals).pipe(Flag.withDescription("Their role in the workspace"), Flag.withDefault("member"))

/** Operator: puts an existing account into a workspace at once (it then appears in their organization and the console). */
export const addMember = Command.make(
  "add-member",
  { workspace: workspaceFlag, email: emailFlag, role: roleFlag },
  ({ email, role, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const membership = yield* (yield* Members).addAsOperator(operatorIn(target.id), { email, role })
      yield* Console.log(JSON.stringify({ id: membership.id, workspaceId: target.id, userId: membership.userId, role: membership.role }))
    }))
).pipe(Command.withDescription("Add the account with this email to a workspace (use invite when they have none)"))

/**
 * Operator: invites a person by email. The invitation and its mail commit together; the server's mail worker sends it
 * (nothing here depends on this shell's mail settings). The link's token is printed once, as the API returns it once.
 */
export const invite = Command.make(
  "invite",
  { workspace: workspaceFlag, email: emailFlag, role: roleFlag },
  ({ email, role, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const { invitation, token } = yield* (yield* Invitations).createAsOperator(operatorIn(target.id), { email, role })
      yield* Console.log(JSON.stringify({
        id: invitation.id,
        workspaceId: target.id,
        email: invitation.email,
        role: invitation.role,
        expiresAt: DateTime.formatIso(invitation.expiresAt),
        token: Redacted.value(token)
      }))
    }))
).pipe(Command.withDescription("Invite a person to a workspace by email (mailed by the server; the token is printed once)"))
