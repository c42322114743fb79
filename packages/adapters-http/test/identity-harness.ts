import { Accounts, Invitations, type MembershipId, Organization, type Role, type WorkspaceId } from "@atrium/domain"
import { Effect, Redacted } from "effect"
import { HttpApi } from "effect/http-api"
import { Api } from "../src/index.ts"

/** A password inside the domain's bounds. */
export const password = "correct horse battery"

let counter = 0
/** A fresh, unique email for `role`, so many teams can live in one store. */
export const freshEmail = (label: string) => `${label}${++counter}@example.com`

/** A signed-in member: their access token, membership and user. */
export interface SeededMember {
  readonly token: string
  readonly refreshToken: string
  readonly membershipId: MembershipId
  readonly email: string
}

/** A workspace with an owner, an admin and a member, each with a session acting in it; `join` adds more. */
export const seedTeam = Effect.gen(function*() {
  const accounts = yield* Accounts
  const invitations = yield* Invitations
  const organization = yield* Organization
  const ownerEmail = freshEmail("owner")
  const owner = yield* accounts.signUp({ email: ownerEmail, password: Redacted.make(password), name: "Owner" })
  const ownerPrincipal = yield* accounts.authenticate(owner.session.accessToken)
  const join = Effect.fnUntraced(function*(role: Role) {
    const email = freshEmail(role)
    const invited = yield* invitations.create(ownerPrincipal, { email, role })
    const user = yield* accounts.signUp({ email, password: Redacted.make(password), name: role })
    const accepted = yield* invitations.accept(user.user.id, invited.token)
    yield* organization.switchActive(yield* accounts.authenticateSession(user.session.accessToken), owner.workspace.id)
    const seeded: SeededMember = {
      token: Redacted.value(user.session.accessToken),
      refreshToken: Redacted.value(user.session.refreshToken),
      membershipId: accepted.membership.id,
      email
    }
    return seeded
  })
  const ownerSeeded: SeededMember = {
    token: Redacted.value(owner.session.accessToken),
    refreshToken: Redacted.value(owner.session.refreshToken),
    membershipId: owner.membership.id,
    email: ownerEmail
  }
  const workspaceId: WorkspaceId = owner.workspace.id
  return { workspaceId, owner: ownerSeeded, admin: yield* join("admin"), member: yield* join("member"), join }
})

/** One route of the contract: its group, operation, method and router path. */
export interface ContractRoute {
  readonly group: string
  readonly name: string
  readonly method: string
  readonly path: string
}

/** Every route of `Api`, read from its definition so a new one cannot escape the tests that use this. */
export const contractRoutes = (): ReadonlyArray<ContractRoute> => {
  const routes: Array<ContractRoute> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) =>
      routes.push({ group: group.identifier, name: endpoint.identifier, method: endpoint.method, path: endpoint.path })
  })
  return routes
}

/** The routes behind member sessions: every `/api/mobile` route and the `/api/auth` routes that take an access token. */
export const sessionRoutes = () =>
  contractRoutes().filter((route) => route.path.startsWith("/api/mobile/") || route.group === "authSession")

/** The `/api/mobile` routes. */
export const mobileRoutes = () => contractRoutes().filter((route) => route.path.startsWith("/api/mobile/"))

// Ids of the right shape for each kind of path parameter, so a request gets past decoding wherever it is allowed.
const placeholderFor = (path: string) =>
  path.includes("/webhooks/deliveries/") ? "msg_placeholder0" :
  path.includes("/webhooks/") ? "whe_placeholder0" :
  path.includes("/api-keys/") ? "key_placeholder0" :
  path.includes("/invitations/") ? "inv_placeholder0" :
  path.includes("/members/") ? "mem_placeholder0" :
  path.includes("/sessions/") ? "ses_placeholder0" :
  path.includes("/schedules/") ? "sch_placeholder0" :
  path.includes("/domains/") ? "dom_placeholder0" :
  "placeholder0"

/** The route's path with `:id` filled in (by `id`, or a well-formed id that names nothing). */
export const concretePath = (route: ContractRoute, id?: string) => route.path.replace(":id", id ?? placeholderFor(route.path))

/** The HTTP method of a route, as the test client names it. */
export const methodOf = (route: ContractRoute): "GET" | "POST" | "PUT" | "PATCH" | "DELETE" => {
  switch (route.method) {
    case "POST":
      return "POST"
    case "PUT":
      return "PUT"
    case "PATCH":
      return "PATCH"
    case "DELETE":
      return "DELETE"
    default:
      return "GET"
  }
}
