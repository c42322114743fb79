import {
  Accounts,
  actorOf,
  AiTasks,
  ApiKeys,
  Entitlements,
  Feature,
  Invitations,
  Organization,
  permits,
  systemActor,
  Usage
} from "@atrium/domain"
import { Effect, Redacted } from "effect"

const password = Redacted.make("correct horse battery")
const operator = systemActor("embedding-example")

/**
 * What an embedding team does with the domain, whatever stores it: a workspace with its owner, a member invited into
 * it, an API key, an AI task submitted as the member, and the member refused what only an admin may do.
 */
export const scenario = Effect.gen(function*() {
  const accounts = yield* Accounts
  const owner = yield* accounts.signUp({ email: "owner@example.com", password, name: "Owner" })
  const workspaceId = owner.workspace.id
  const ownerPrincipal = yield* accounts.authenticate(owner.session.accessToken)

  // The service asks the acting principal's permission itself: an owner may manage keys.
  const keys = yield* ApiKeys
  const key = yield* keys.create(ownerPrincipal, { name: "ci", scopes: ["ai_tasks:write"] })
  const keyPrincipal = yield* keys.authenticate(key.plaintext)

  const invitations = yield* Invitations
  const invited = yield* invitations.create(ownerPrincipal, { email: "member@example.com", role: "member" })
  const member = yield* accounts.signUp({ email: "member@example.com", password, name: "Member" })
  yield* invitations.accept(member.user.id, invited.token)
  yield* (yield* Organization).switchActive(yield* accounts.authenticateSession(member.session.accessToken), workspaceId)
  const memberPrincipal = yield* accounts.authenticate(member.session.accessToken)

  yield* (yield* Entitlements).grant({ workspaceId, feature: Feature.make("ai.basic"), source: "plan", actor: operator })
  yield* (yield* Usage).addCredits(workspaceId, 1_000_000, operator)
  yield* permits(memberPrincipal, "ai_tasks.submit")
  const submitted = yield* (yield* AiTasks).submit({
    workspaceId: memberPrincipal.workspaceId,
    actor: actorOf(memberPrincipal),
    model: "atrium-local-1",
    input: { prompt: "hello" }
  })

  // A member may not: the domain refuses, with no HTTP layer in front.
  const refused = yield* keys.create(memberPrincipal, { name: "mine" }).pipe(Effect.flip)
  return {
    workspace: workspaceId,
    key: keyPrincipal.keyId,
    member: memberPrincipal.role,
    task: `${submitted.task.id} ${submitted.task.status}`,
    refused: refused._tag === "Forbidden" ? `Forbidden: ${refused.detail}` : refused._tag
  }
})

/** Fails unless the scenario came out as it must. */
export const check = (result: Effect.Success<typeof scenario>) =>
  result.member === "member" && result.task.includes("queued") && result.refused.startsWith("Forbidden")
    ? Effect.succeed(result)
    : Effect.die(new Error(`unexpected outcome: ${JSON.stringify(result)}`))
