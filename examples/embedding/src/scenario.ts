import {
  Accounts,
  AiTasks,
  ApiKeys,
  Entitlements,
  Feature,
  Invitations,
  Organization,
  SystemPrincipal,
  Usage
} from "@atrium/domain"
import { Effect, Redacted } from "effect"

const password = Redacted.make("correct horse battery")

/**
 * What an embedding team does with the domain, whatever stores it: a workspace with its owner, a member invited into
 * it, an API key, an AI task submitted as the member, and the member and a read-only key refused what they may not do.
 * Every service asks the acting principal's permission itself: there is no HTTP layer in front.
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

  // Grants and credits are the operator's: the embedding process acts as the system in the workspace.
  const operator = new SystemPrincipal({ name: "embedding-example", workspaceId })
  yield* (yield* Entitlements).grant(operator, { feature: Feature.make("ai.basic"), source: "plan" })
  yield* (yield* Usage).addCredits(operator, 1_000_000)
  const tasks = yield* AiTasks
  const submitted = yield* tasks.submit(memberPrincipal, { model: "atrium-local-1", input: { prompt: "hello" } })

  // A member may not manage keys, nor grant itself features; a read-only key may not submit tasks.
  const refused = yield* keys.create(memberPrincipal, { name: "mine" }).pipe(Effect.flip)
  const selfGrant = yield* (yield* Entitlements).grant(memberPrincipal, { feature: Feature.make("ai.advanced"), source: "plan" }).pipe(Effect.flip)
  const readOnly = yield* keys.authenticate((yield* keys.create(ownerPrincipal, { name: "reader", scopes: ["read"] })).plaintext)
  const unscoped = yield* tasks.submit(readOnly, { model: "atrium-local-1", input: { prompt: "hello" } }).pipe(Effect.flip)
  return {
    workspace: workspaceId,
    key: keyPrincipal.keyId,
    member: memberPrincipal.role,
    task: `${submitted.task.id} ${submitted.task.status}`,
    refused: refused._tag === "Forbidden" ? `Forbidden: ${refused.detail}` : refused._tag,
    selfGrant: selfGrant._tag,
    unscoped: unscoped._tag === "InsufficientScope" ? `InsufficientScope: ${unscoped.requiredScope}` : unscoped._tag
  }
})

/** Fails unless the scenario came out as it must. */
export const check = (result: Effect.Success<typeof scenario>) =>
  result.member === "member" && result.task.includes("queued") && result.refused.startsWith("Forbidden") &&
    result.selfGrant === "Forbidden" && result.unscoped === "InsufficientScope: ai_tasks:write"
    ? Effect.succeed(result)
    : Effect.die(new Error(`unexpected outcome: ${JSON.stringify(result)}`))
