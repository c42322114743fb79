import { Entitlements, Feature, type WorkspaceId } from "@atrium/domain"
import { records, setZone, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { addKey, AppUnderTest, send, sendJson } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"

const entitle = (workspaceId: WorkspaceId) =>
  Effect.flatMap(Entitlements, (entitlements) => entitlements.grant(systemPrincipal(workspaceId), { feature: Feature.make("domains.custom"), source: "plan" }))

/** A team whose workspace may add custom domains. */
const entitledTeam = Effect.gen(function*() {
  const team = yield* seedTeam
  yield* entitle(team.workspaceId)
  return team
})

const nextAction = (body: Record<string, unknown>): Record<string, unknown> => {
  const action = body.nextAction
  return typeof action === "object" && action !== null ? Object.fromEntries(Object.entries(action)) : assert.fail("no nextAction")
}

describe("/api/mobile/domains", () => {
  it.effect("an admin adds a domain (201, normalised, with the TXT next action); members read it; checks verify it", () =>
    Effect.gen(function*() {
      const team = yield* entitledTeam
      const created = yield* sendJson("POST", "/api/mobile/domains", team.admin.token, { hostname: "Shop.Bücher.Example." })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.body.hostname, "shop.xn--bcher-kva.example")
      assert.strictEqual(created.body.hostnameUnicode, "shop.bücher.example")
      assert.strictEqual(created.body.status, "pending_verification")
      assert.isNull(created.body.observed)
      const action = nextAction(created.body)
      assert.strictEqual(action.type, "add_txt")
      assert.strictEqual(action.name, "_atrium-challenge.shop.xn--bcher-kva.example")
      assert.match(String(action.value), /^atrium-verify=[0-9a-f]{32}$/)
      assert.isString(action.message)
      const id = String(created.body.id)
      assert.match(id, /^dom_/)

      const listed = yield* send("GET", "/api/mobile/domains", { key: team.member.token })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual((listed.body.data as ReadonlyArray<{ id: string }>).map((d) => d.id), [id])
      const refused = yield* sendJson("POST", "/api/mobile/domains", team.member.token, { hostname: "other.example.com" })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.code, "forbidden")

      yield* setZone(String(action.name), records([String(action.value)]))
      const verified = yield* send("POST", `/api/mobile/domains/${id}/verify`, { key: team.admin.token })
      assert.strictEqual(verified.status, 200, verified.text)
      assert.strictEqual(verified.body.status, "verified")
      assert.deepStrictEqual(verified.body.observed, { txt: [action.value], cname: null, checkedAt: verified.body.lastCheckedAt, error: null })
      assert.strictEqual(nextAction(verified.body).type, "none")

      const tooSoon = yield* send("POST", `/api/mobile/domains/${id}/verify`, { key: team.admin.token })
      assert.strictEqual(tooSoon.status, 429)
      assert.strictEqual(tooSoon.body.code, "rate_limited")
      assert.strictEqual(tooSoon.headers["retry-after"], "10")
      // The headers describe the limit that refused (one check per 10 s), not the request limiter that let it through.
      assert.strictEqual(tooSoon.headers["ratelimit"], "limit=1, remaining=0, reset=10")
      assert.strictEqual(tooSoon.headers["ratelimit-policy"], "1;w=10")
      assert.strictEqual(tooSoon.headers["content-type"], "application/problem+json")
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* send("POST", `/api/mobile/domains/${id}/verify`, { key: team.admin.token })).status, 200)

      const removed = yield* send("DELETE", `/api/mobile/domains/${id}`, { key: team.admin.token })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* send("GET", `/api/mobile/domains/${id}`, { key: team.member.token })).status, 404)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("without the domains.custom feature creation is 403 not_entitled; bad hostnames are 400", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const refused = yield* sendJson("POST", "/api/mobile/domains", team.admin.token, { hostname: "app.example.com" })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.code, "not_entitled")
      assert.strictEqual(refused.body.feature, "domains.custom")
      yield* entitle(team.workspaceId)
      for (const hostname of ["*.example.com", "192.0.2.1", "printer.local", "", "example.com:8443", "xn--zz.example", "xn--deny.test", "printer.l\u043Ecal"]) {
        const bad = yield* sendJson("POST", "/api/mobile/domains", team.admin.token, { hostname })
        assert.strictEqual(bad.status, 400, hostname)
        assert.strictEqual(bad.body.code, "invalid_request", hostname)
      }
      const extra = yield* sendJson("POST", "/api/mobile/domains", team.admin.token, { hostname: "app.example.com", workspaceId: "ws_other" })
      assert.strictEqual(extra.status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("another workspace's domain id is 404 for reading, verifying and deleting", () =>
    Effect.gen(function*() {
      const theirs = yield* entitledTeam
      const mine = yield* entitledTeam
      const created = yield* sendJson("POST", "/api/mobile/domains", theirs.admin.token, { hostname: "theirs.example.com" })
      const path = `/api/mobile/domains/${String(created.body.id)}`
      for (const [method, route] of [["GET", path], ["DELETE", path], ["POST", `${path}/verify`]] as const) {
        const reply = yield* send(method, route, { key: mine.owner.token })
        assert.strictEqual(reply.status, 404, `${method} ${route}`)
        assert.strictEqual(reply.body.code, "not_found")
      }
      assert.strictEqual((yield* send("GET", path, { key: theirs.member.token })).status, 200)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("a hostname verified elsewhere answers 409 domain_taken until this workspace's own proof is published", () =>
    Effect.gen(function*() {
      const first = yield* entitledTeam
      const second = yield* entitledTeam
      const held = yield* sendJson("POST", "/api/mobile/domains", first.admin.token, { hostname: "shared.example.com" })
      const heldAction = nextAction(held.body)
      yield* setZone(String(heldAction.name), records([String(heldAction.value)]))
      assert.strictEqual((yield* send("POST", `/api/mobile/domains/${String(held.body.id)}/verify`, { key: first.admin.token })).body.status, "verified")
      const claim = yield* sendJson("POST", "/api/mobile/domains", second.admin.token, { hostname: "shared.example.com" })
      assert.strictEqual(claim.status, 201)
      const taken = yield* send("POST", `/api/mobile/domains/${String(claim.body.id)}/verify`, { key: second.admin.token })
      assert.strictEqual(taken.status, 409)
      assert.strictEqual(taken.body.code, "domain_taken")
      assert.strictEqual(taken.body.hostname, "shared.example.com")
      yield* setZone(String(heldAction.name), records([String(heldAction.value), String(nextAction(claim.body).value)]))
      yield* TestClock.adjust("10 seconds")
      const won = yield* send("POST", `/api/mobile/domains/${String(claim.body.id)}/verify`, { key: second.admin.token })
      assert.strictEqual(won.body.status, "verified")
      const lost = yield* send("GET", `/api/mobile/domains/${String(held.body.id)}`, { key: first.member.token })
      assert.strictEqual(lost.body.status, "misconfigured")
      assert.strictEqual(lost.body.misconfiguredReason, "claimed_elsewhere")
    }).pipe(Effect.provide(AppUnderTest())))
})

describe("GET /api/v1/domains", () => {
  it.effect("lists the key's workspace's domains with scope read; other scopes are 403 insufficient_scope", () =>
    Effect.gen(function*() {
      const team = yield* entitledTeam
      yield* sendJson("POST", "/api/mobile/domains", team.admin.token, { hostname: "api.example.com" })
      const other = yield* entitledTeam
      yield* sendJson("POST", "/api/mobile/domains", other.admin.token, { hostname: "elsewhere.example.com" })
      const readKey = yield* addKey(team.workspaceId, ["read"])
      const listed = yield* send("GET", "/api/v1/domains", { key: readKey })
      assert.strictEqual(listed.status, 200, listed.text)
      assert.deepStrictEqual((listed.body.data as ReadonlyArray<{ hostname: string }>).map((d) => d.hostname), ["api.example.com"])
      assert.isNull(listed.body.nextCursor)
      const writerOnly = yield* addKey(team.workspaceId, ["webhooks:write"])
      const refused = yield* send("GET", "/api/v1/domains", { key: writerOnly })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.code, "insufficient_scope")
      assert.strictEqual(refused.body.requiredScope, "read")
      assert.strictEqual((yield* send("GET", "/api/v1/domains", { key: team.admin.token })).status, 401)
    }).pipe(Effect.provide(AppUnderTest())))
})
