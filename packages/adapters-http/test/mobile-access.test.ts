import type { Role } from "@atrium/domain"
import { MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { TestClock } from "effect/testing"
import { AppUnderTest, type Reply, seedKey, send } from "./harness.ts"
import { concretePath, type ContractRoute, methodOf, mobileRoutes, seedTeam, sessionRoutes } from "./identity-harness.ts"

// The least role each `/api/mobile` route needs. Keyed by operation; the test below fails when a route is missing here.
const leastRole: Record<string, Role> = {
  "mobileSession.getOrganization": "member",
  "mobileSession.switchWorkspace": "member",
  "mobileSession.acceptInvitation": "member",
  "mobileWorkspace.getEntitlement": "member",
  "mobileWorkspace.getUsage": "member",
  "mobileWorkspace.getAppearance": "member",
  "mobileWorkspace.putAppearance": "member",
  "mobileTeam.listMembers": "admin",
  "mobileTeam.changeMemberRole": "admin",
  "mobileTeam.removeMember": "admin",
  "mobileTeam.listInvitations": "admin",
  "mobileTeam.createInvitation": "admin",
  "mobileTeam.revokeInvitation": "admin",
  "mobileTeam.listAudit": "admin",
  "mobileDevelopers.listApiKeys": "admin",
  "mobileDevelopers.createApiKey": "admin",
  "mobileDevelopers.rollApiKey": "admin",
  "mobileDevelopers.revokeApiKey": "admin",
  "mobileDevelopers.listRequestLogs": "admin",
  "mobileWebhooks.listWebhookEndpoints": "admin",
  "mobileWebhooks.createWebhookEndpoint": "admin",
  "mobileWebhooks.getWebhookEndpoint": "admin",
  "mobileWebhooks.updateWebhookEndpoint": "admin",
  "mobileWebhooks.deleteWebhookEndpoint": "admin",
  "mobileWebhooks.rotateWebhookSecret": "admin",
  "mobileWebhooks.testWebhookEndpoint": "admin",
  "mobileWebhooks.recoverWebhookDeliveries": "admin",
  "mobileWebhooks.listWebhookDeliveries": "admin",
  "mobileWebhooks.getWebhookDelivery": "admin",
  "mobileWebhooks.replayWebhookDelivery": "admin",
  "mobileWebhooks.listEvents": "admin",
  "mobileWebhooks.listEventTypes": "admin",
  "mobileDomains.listDomains": "member",
  "mobileDomains.getDomain": "member",
  "mobileDomains.createDomain": "admin",
  "mobileDomains.deleteDomain": "admin",
  "mobileDomains.verifyDomain": "admin",
  "mobileFeedback.listFeatureRequests": "member",
  "mobileFeedback.createFeatureRequest": "member",
  "mobileFeedback.getFeatureRequest": "member",
  "mobileFeedback.voteFeatureRequest": "member",
  "mobileFeedback.unvoteFeatureRequest": "member",
  "mobilePush.listPushDevices": "member",
  "mobilePush.putPushDevice": "member",
  "mobilePush.deletePushDevice": "member",
  "mobilePush.getNotificationPreferences": "member",
  "mobilePush.putNotificationPreferences": "member",
  "mobileSchedules.previewSchedule": "member",
  "mobileSchedules.listSchedules": "member",
  "mobileSchedules.createSchedule": "admin",
  "mobileSchedules.getSchedule": "member",
  "mobileSchedules.updateSchedule": "admin",
  "mobileSchedules.deleteSchedule": "admin",
  "mobileSchedules.pauseSchedule": "admin",
  "mobileSchedules.resumeSchedule": "admin",
  "mobileSchedules.runScheduleNow": "admin",
  "mobileSchedules.listScheduleRuns": "member",
  "mobilePurchases.availability": "member",
  "mobilePurchases.sync": "admin",
  "mobilePurchases.syncStatus": "member",
  "mobilePurchases.list": "member",
  "mobilePurchases.get": "member"
}

const rank: Record<Role, number> = { member: 1, admin: 2, owner: 3 }
const keyOf = (route: ContractRoute) => `${route.group}.${route.name}`
const label = (route: ContractRoute) => `${route.method} ${route.path}`

// An empty JSON body on writes: an allowed caller gets past the role check to a 400, a refused one stops at it.
const call = (route: ContractRoute, token: string | undefined, id?: string) => {
  const method = methodOf(route)
  const path = concretePath(route, id)
  const auth = token === undefined ? {} : { key: token }
  return method === "GET" || method === "DELETE" ? send(method, path, auth) : send(method, path, { ...auth, body: "{}" })
}

const assertRefused = (reply: Reply, route: ContractRoute, status: number, code: string) => {
  assert.strictEqual(reply.status, status, `${label(route)}: ${reply.text}`)
  assert.strictEqual(reply.body.code, code, label(route))
  assert.strictEqual(reply.headers["content-type"], "application/problem+json", label(route))
  if (status === 401) assert.include(reply.headers["www-authenticate"] ?? "", `Bearer realm="atrium"`, label(route))
}

describe("/api/mobile access", () => {
  it("the route list is read from the Api and every mobile route has an expected role", () => {
    const routes = mobileRoutes()
    assert.isAtLeast(routes.length, 30)
    assert.deepStrictEqual(routes.map(keyOf).sort(), Object.keys(leastRole).sort())
    assert.isTrue(sessionRoutes().some((route) => route.path === "/api/auth/session"))
  })

  it.effect("every session route refuses no credential, an API key, a signed-out session, and a dead database", () =>
    Effect.gen(function*() {
      const { key } = yield* seedKey()
      const team = yield* seedTeam
      for (const route of sessionRoutes()) {
        assertRefused(yield* call(route, undefined), route, 401, "missing_credentials")
        assertRefused(yield* call(route, key), route, 401, "malformed_credentials")
        assertRefused(yield* call(route, "at_notARealToken"), route, 401, "invalid_session")
      }
      const signedOut = yield* seedTeam
      assert.strictEqual((yield* send("POST", "/api/auth/sign-out", { key: signedOut.member.token })).status, 204)
      for (const route of sessionRoutes()) {
        assertRefused(yield* call(route, signedOut.member.token), route, 401, "invalid_session")
      }
      yield* Ref.set((yield* MemoryStore).down, true)
      // Past the verified-session cache (≤ 1 s): authentication itself must ask the dead store.
      yield* TestClock.adjust("2 seconds")
      for (const route of sessionRoutes()) {
        const reply = yield* call(route, team.owner.token)
        assert.strictEqual(reply.status, 503, `${label(route)}: ${reply.text}`)
        assert.strictEqual(reply.body.code, "unavailable")
        assert.isUndefined(reply.headers["www-authenticate"])
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("every session route answers an access token past its expiry with session_expired", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      yield* TestClock.adjust("16 minutes")
      for (const route of sessionRoutes()) {
        assertRefused(yield* call(route, team.owner.token), route, 401, "session_expired")
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("role × route: each role reaches exactly the routes its role allows, else 403 forbidden", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      for (const role of ["owner", "admin", "member"] as const) {
        const caller = team[role]
        for (const route of mobileRoutes()) {
          // Removing someone needs a real member to remove (the domain decides, after finding them).
          const id = route.name === "removeMember" || route.name === "changeMemberRole"
            ? (yield* team.join("member")).membershipId
            : undefined
          const reply = yield* call(route, caller.token, id)
          const expected = leastRole[keyOf(route)]
          assert.isDefined(expected, label(route))
          if (expected !== undefined && rank[role] >= rank[expected]) {
            assert.notInclude([401, 403], reply.status, `${role} ${label(route)}: ${reply.text}`)
          } else {
            assertRefused(reply, route, 403, "forbidden")
          }
        }
      }
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a member removed from the active workspace is 403 on member routes but can still switch", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const removed = yield* send("DELETE", `/api/mobile/members/${team.member.membershipId}`, { key: team.owner.token })
      assert.strictEqual(removed.status, 204)
      const usage = yield* send("GET", "/api/mobile/usage", { key: team.member.token })
      assert.strictEqual(usage.status, 403)
      assert.strictEqual(usage.body.code, "forbidden")
      const organization = yield* send("GET", "/api/mobile/organization", { key: team.member.token })
      assert.strictEqual(organization.status, 200)
      assert.isNull(organization.body.workspace)
    }).pipe(Effect.provide(AppUnderTest())))
})
