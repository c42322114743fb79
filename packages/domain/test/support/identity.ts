import { Accounts, type IssuedSession, Invitations, Organization, type Role, type SessionPrincipal, type SignedUp } from "@atrium/domain"
import { Effect, Redacted } from "effect"

/** A password inside the length bounds. */
export const password = Redacted.make("correct horse battery")

/** Signs up a user named after the local part of `email`. */
export const signUp = (email: string, name = email.split("@")[0] ?? "someone") =>
  Effect.flatMap(Accounts, (accounts) => accounts.signUp({ email, password, name }))

/** The member principal of an issued session, as the HTTP middleware would resolve it. */
export const principalOf = (session: IssuedSession) =>
  Effect.flatMap(Accounts, (accounts) => accounts.authenticate(session.accessToken))

/** A workspace with an owner; `join` adds members with roles through real invitations, acting in that workspace. */
export const team = Effect.gen(function*() {
  const owner: SignedUp = yield* signUp("owner@example.com", "Owner")
  const ownerPrincipal: SessionPrincipal = yield* principalOf(owner.session)
  const join = Effect.fnUntraced(function*(email: string, role: Role) {
    const invited = yield* (yield* Invitations).create(ownerPrincipal, { email, role })
    const user = yield* signUp(email)
    const accepted = yield* (yield* Invitations).accept(user.user.id, invited.token)
    const accounts = yield* Accounts
    const session = yield* accounts.authenticateSession(user.session.accessToken)
    yield* (yield* Organization).switchActive(session, owner.workspace.id)
    const principal: SessionPrincipal = yield* principalOf(user.session)
    return { ...user, membership: accepted.membership, principal }
  })
  return { owner, ownerPrincipal, workspace: owner.workspace, join }
})
