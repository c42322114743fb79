import { Entitlements, Feature, Usage } from "@atrium/domain"
import { systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { mobileWebhookPaths, v1WebhookPaths } from "../src/index.ts"
import { AppUnderTest, seedKey, send, sendJson } from "./harness.ts"
import { freshEmail, password, seedTeam } from "./identity-harness.ts"
import { isRecord, member, records } from "./json.ts"

const bundle = { theme: "dark", accentColor: "#112233", textScalePercent: 110, reducedMotion: true, density: "compact", extras: { beta: true } }

describe("/api/mobile", () => {
  it.effect("members: the last owner can neither be demoted nor removed; admins cannot touch owners", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const owner = team.owner
      const demote = yield* sendJson("PATCH", `/api/mobile/members/${owner.membershipId}`, owner.token, { role: "admin" })
      assert.strictEqual(demote.status, 409, demote.text)
      assert.strictEqual(demote.body.code, "conflict")
      const leave = yield* send("DELETE", `/api/mobile/members/${owner.membershipId}`, { key: owner.token })
      assert.strictEqual(leave.status, 409)
      const byAdmin = yield* send("DELETE", `/api/mobile/members/${owner.membershipId}`, { key: team.admin.token })
      assert.strictEqual(byAdmin.status, 403)
      assert.strictEqual(byAdmin.body.code, "forbidden")
      // With a second owner, the first may go.
      const promoted = yield* sendJson("PATCH", `/api/mobile/members/${team.admin.membershipId}`, owner.token, { role: "owner" })
      assert.strictEqual(promoted.status, 200, promoted.text)
      assert.strictEqual(promoted.body.role, "owner")
      assert.strictEqual((yield* send("DELETE", `/api/mobile/members/${owner.membershipId}`, { key: owner.token })).status, 204)
      const listed = yield* send("GET", "/api/mobile/members", { key: team.admin.token })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual(records(listed.body.data).map((m) => m.role).sort(), ["member", "owner"])
      // Only the fields the schema names: no one sets a workspace through the body.
      const smuggled = yield* sendJson("PATCH", `/api/mobile/members/${team.member.membershipId}`, team.admin.token, {
        role: "admin",
        workspaceId: "ws_other0000000000"
      })
      assert.strictEqual(smuggled.status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("invitations: the matching email joins, another email is refused, a revoked token is not found", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const email = freshEmail("joiner")
      const created = yield* sendJson("POST", "/api/mobile/invitations", team.admin.token, { email, role: "member" })
      assert.strictEqual(created.status, 201, created.text)
      const token = String(created.body.token)
      assert.match(token, /^it_/)
      const joiner = yield* sendJson("POST", "/api/auth/sign-up", "", { email, password, name: "Joiner" })
      const stranger = yield* sendJson("POST", "/api/auth/sign-up", "", { email: freshEmail("stranger"), password, name: "S" })
      const joinerToken = String(member(joiner.body.session, "accessToken"))
      const strangerToken = String(member(stranger.body.session, "accessToken"))
      const refused = yield* sendJson("POST", "/api/mobile/invitations/accept", strangerToken, { token })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(refused.body.code, "forbidden")
      const accepted = yield* sendJson("POST", "/api/mobile/invitations/accept", joinerToken, { token })
      assert.strictEqual(accepted.status, 200, accepted.text)
      assert.strictEqual(accepted.body.workspaceId, team.workspaceId)
      const switched = yield* sendJson("PUT", "/api/mobile/organization/active", joinerToken, { workspaceId: team.workspaceId })
      assert.strictEqual(switched.status, 200, switched.text)
      assert.strictEqual(member(switched.body.workspace, "id"), team.workspaceId)
      assert.strictEqual(switched.body.role, "member")
      assert.strictEqual(records(switched.body.memberships).length, 2)
      // A workspace the user does not belong to is not found.
      const notMine = yield* sendJson("PUT", "/api/mobile/organization/active", strangerToken, { workspaceId: team.workspaceId })
      assert.strictEqual(notMine.status, 404)
      // Revoked: the token no longer exists for anyone.
      const later = freshEmail("later")
      const second = yield* sendJson("POST", "/api/mobile/invitations", team.owner.token, { email: later, role: "admin" })
      const revoked = yield* send("DELETE", `/api/mobile/invitations/${String(member(second.body.invitation, "id"))}`, { key: team.owner.token })
      assert.strictEqual(revoked.status, 204)
      const laterUser = yield* sendJson("POST", "/api/auth/sign-up", "", { email: later, password, name: "Later" })
      const gone = yield* sendJson("POST", "/api/mobile/invitations/accept", String(member(laterUser.body.session, "accessToken")), {
        token: String(second.body.token)
      })
      assert.strictEqual(gone.status, 404)
      const listed = yield* send("GET", "/api/mobile/invitations", { key: team.owner.token })
      assert.deepStrictEqual(records(listed.body.data).map((i) => i.status).sort(), ["accepted", "accepted", "accepted", "revoked"])
      // An admin cannot invite an owner.
      const owner = yield* sendJson("POST", "/api/mobile/invitations", team.admin.token, { email: freshEmail("o"), role: "owner" })
      assert.strictEqual(owner.status, 403)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("appearance: GET has an ETag; PUT needs If-Match, and a stale one is 412 with the bundle unchanged", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const token = team.member.token
      const first = yield* send("GET", "/api/mobile/appearance", { key: token })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers.etag, `"v0"`)
      assert.strictEqual(first.body.theme, "system")
      const missing = yield* sendJson("PUT", "/api/mobile/appearance", token, bundle)
      assert.strictEqual(missing.status, 428)
      assert.strictEqual(missing.body.code, "precondition_required")
      const saved = yield* sendJson("PUT", "/api/mobile/appearance", token, bundle, { "if-match": `"v0"` })
      assert.strictEqual(saved.status, 200, saved.text)
      assert.strictEqual(saved.headers.etag, `"v1"`)
      for (const stale of [`"v0"`, "garbage"]) {
        const refused = yield* sendJson("PUT", "/api/mobile/appearance", token, { ...bundle, theme: "light" }, { "if-match": stale })
        assert.strictEqual(refused.status, 412, stale)
        assert.strictEqual(refused.body.code, "precondition_failed")
        assert.strictEqual(refused.body.currentEtag, `"v1"`)
      }
      const after = yield* send("GET", "/api/mobile/appearance", { key: token })
      assert.strictEqual(after.headers.etag, `"v1"`)
      assert.deepStrictEqual(after.body, bundle)
      const invalid = yield* sendJson("PUT", "/api/mobile/appearance", token, { ...bundle, accentColor: "red" }, { "if-match": `"v1"` })
      assert.strictEqual(invalid.status, 400)
      // Bundles are per member: the owner still sees the default.
      assert.strictEqual((yield* send("GET", "/api/mobile/appearance", { key: team.owner.token })).headers.etag, `"v0"`)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("entitlement access: none, limited with only ai.basic, full with a paid feature", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const access = () => send("GET", "/api/mobile/entitlement", { key: team.member.token })
      const none = yield* access()
      assert.strictEqual(none.status, 200)
      assert.deepInclude(none.body, { access: "none", role: "member", entitlements: [] })
      const entitlements = yield* Entitlements
      yield* entitlements.grant(systemPrincipal(team.workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
      assert.strictEqual((yield* access()).body.access, "limited")
      yield* entitlements.grant(systemPrincipal(team.workspaceId), { feature: Feature.make("ai.advanced"), source: "purchase" })
      const full = yield* access()
      assert.strictEqual(full.body.access, "full")
      assert.strictEqual(records(full.body.entitlements).length, 2)
      const usage = yield* send("GET", "/api/mobile/usage", { key: team.member.token })
      assert.strictEqual(usage.status, 200)
      assert.isString(usage.body.month)
      assert.isTrue(isRecord(usage.body.caps))
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("api keys: created once in plaintext, listed with prefix and creator, revoked; scopes validated", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const created = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "ci", scopes: ["read", "ai_tasks:write"] })
      assert.strictEqual(created.status, 201, created.text)
      const key = String(created.body.key)
      assert.match(key, /^sk_live_/)
      assert.deepStrictEqual(member(created.body.apiKey, "createdBy"), { type: "user", id: member(member(created.body.apiKey, "createdBy"), "id") })
      const works = yield* send("GET", "/api/v1/workspaces/current", { key })
      assert.strictEqual(works.status, 200)
      assert.strictEqual(works.body.id, team.workspaceId)
      const listed = yield* send("GET", "/api/mobile/api-keys", { key: team.owner.token })
      const [only] = records(listed.body.data)
      assert.isDefined(only)
      assert.isTrue(key.startsWith(String(only?.prefix)))
      assert.notProperty(only, "key")
      assert.notInclude(listed.text, key)
      const bad = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "x", scopes: ["admin"] })
      assert.strictEqual(bad.status, 400)
      const extra = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "x", workspaceId: "ws_x" })
      assert.strictEqual(extra.status, 400)
      // A key born expired, or with an expiry at the edge of representable time, is a 400, never a 500.
      for (const expiresAt of ["1969-12-31T00:00:00.000Z", "-271821-04-20T00:00:00.000Z", "+275760-09-13T00:00:00.000Z"]) {
        const expired = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "x", expiresAt })
        assert.strictEqual(expired.status, 400, `${expiresAt}: ${expired.text}`)
        assert.strictEqual(expired.body.code, "invalid_request")
      }
      const revoked = yield* send("DELETE", `/api/mobile/api-keys/${String(only?.id)}`, { key: team.admin.token })
      assert.strictEqual(revoked.status, 204)
      assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key })).body.code, "api_key_revoked")
      // Another workspace's key is not found.
      const other = yield* seedKey()
      const foreign = yield* send("DELETE", `/api/mobile/api-keys/${other.apiKey.id}`, { key: team.owner.token })
      assert.strictEqual(foreign.status, 404)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("api keys roll: the new key works at once, the old one until the grace ends, then 401 api_key_expired", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const created = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "deploy", scopes: ["read", "webhooks:write"] })
      const oldKey = String(created.body.key)
      const oldId = String(member(created.body.apiKey, "id"))
      const rollPath = (id: string) => `/api/mobile/api-keys/${id}/roll`
      // Members may not roll (api_keys.manage is for admins and owners), and nothing changes.
      const byMember = yield* sendJson("POST", rollPath(oldId), team.member.token, { graceSeconds: 60 })
      assert.strictEqual(byMember.status, 403, byMember.text)
      assert.strictEqual(byMember.body.code, "forbidden")
      // The grace is bounded; unknown fields are refused.
      for (const body of [{ graceSeconds: 604_801 }, { graceSeconds: -1 }, { graceSeconds: 1.5 }, { graceSeconds: 60, name: "x" }]) {
        const refused = yield* sendJson("POST", rollPath(oldId), team.admin.token, body)
        assert.strictEqual(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`)
        assert.strictEqual(refused.body.code, "invalid_request")
      }
      const rolled = yield* sendJson("POST", rollPath(oldId), team.admin.token, { graceSeconds: 60 })
      assert.strictEqual(rolled.status, 201, rolled.text)
      const newKey = String(rolled.body.key)
      assert.match(newKey, /^sk_live_/)
      assert.notStrictEqual(newKey, oldKey)
      const successor = rolled.body.apiKey
      assert.deepInclude(successor, { name: "deploy", scopes: ["read", "webhooks:write"], expiresAt: null, replacedBy: null })
      assert.deepInclude(rolled.body.previous, { id: oldId, replacedBy: member(successor, "id") })
      assert.isString(member(rolled.body.previous, "expiresAt"))
      // Both keys work during the grace.
      assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key: newKey })).status, 200)
      assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key: oldKey })).status, 200)
      // The roll is on the record: an audit entry and an `api_key.rolled` event naming both keys, never a secret.
      const events = yield* send("GET", "/api/v1/events", { key: newKey })
      const rolledEvent = records(events.body.data).find((event) => event.type === "api_key.rolled")
      assert.isDefined(rolledEvent, events.text)
      assert.strictEqual(member(member(rolledEvent?.data, "previous"), "id"), oldId)
      assert.strictEqual(member(member(rolledEvent?.data, "apiKey"), "id"), member(successor, "id"))
      assert.notInclude(events.text, newKey)
      const audit = yield* send("GET", "/api/mobile/audit", { key: team.admin.token })
      assert.isTrue(records(audit.body.data).some((entry) => entry.action === "api_key.rolled" && entry.target === oldId), audit.text)
      // A key is rolled once: rolling the old one again is a conflict that names its successor.
      const again = yield* send("POST", rollPath(oldId), { key: team.admin.token })
      assert.strictEqual(again.status, 409, again.text)
      assert.strictEqual(again.body.code, "conflict")
      // After the grace the old key is expired; the new one lives on.
      yield* TestClock.adjust("61 seconds")
      const late = yield* send("GET", "/api/v1/workspaces/current", { key: oldKey })
      assert.strictEqual(late.status, 401, late.text)
      assert.strictEqual(late.body.code, "api_key_expired")
      assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key: newKey })).status, 200)
      // Another workspace's key is not found.
      const other = yield* seedKey()
      assert.strictEqual((yield* send("POST", rollPath(other.apiKey.id), { key: team.owner.token })).status, 404)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("api keys roll: the body is optional (none, empty, null or {}), each taking the default 24 h grace", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const keys: Array<string> = []
      const bodies: ReadonlyArray<{ readonly body?: string; readonly contentType?: string }> = [
        {},
        { body: "" },
        { body: "", contentType: "application/json" },
        { body: "null" },
        { body: "{}" }
      ]
      for (const options of bodies) {
        const created = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "ci" })
        keys.push(String(created.body.key))
        const rolled = yield* send("POST", `/api/mobile/api-keys/${String(member(created.body.apiKey, "id"))}/roll`, {
          key: team.admin.token,
          ...options
        })
        assert.strictEqual(rolled.status, 201, `${JSON.stringify(options)}: ${rolled.text}`)
        const graceMillis = Date.parse(String(member(rolled.body.previous, "expiresAt"))) - Date.parse(String(member(rolled.body.apiKey, "createdAt")))
        assert.strictEqual(graceMillis, 24 * 60 * 60 * 1000)
      }
      // Just before the default grace ends the old keys work; at its end they are expired.
      yield* TestClock.adjust("23 hours")
      for (const key of keys) assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key })).status, 200)
      yield* TestClock.adjust("1 hour")
      for (const key of keys) assert.strictEqual((yield* send("GET", "/api/v1/workspaces/current", { key })).body.code, "api_key_expired")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("API key vs session: each interface takes its own credential; AI tasks take both", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { key } = yield* seedKey({ scopes: ["read", "ai_tasks:write"] })
      const onMobile = yield* send("GET", "/api/mobile/usage", { key })
      assert.strictEqual(onMobile.status, 401)
      assert.strictEqual(onMobile.body.code, "malformed_credentials")
      const onV1 = yield* send("GET", "/api/v1/workspaces/current", { key: team.member.token })
      assert.strictEqual(onV1.status, 401)
      assert.strictEqual(onV1.body.code, "malformed_credentials")
      yield* (yield* Entitlements).grant(systemPrincipal(team.workspaceId), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(team.workspaceId), 10_000)
      const submitted = yield* sendJson("POST", "/api/v1/ai-tasks", team.member.token, { model: "atrium-local-1", input: { prompt: "hi" } })
      assert.strictEqual(submitted.status, 202, submitted.text)
      const path = `/api/v1/ai-tasks/${String(submitted.body.id)}`
      const got = yield* send("GET", path, { key: team.member.token })
      assert.strictEqual(got.status, 200)
      assert.strictEqual(got.body.id, submitted.body.id)
      // A key of the same workspace sees the member's task; a key of another does not.
      const sameWorkspaceKey = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "r" })
      assert.strictEqual((yield* send("GET", path, { key: String(sameWorkspaceKey.body.key) })).status, 200)
      assert.strictEqual((yield* send("GET", path, { key })).status, 404)
      const byKey = yield* sendJson("POST", "/api/v1/ai-tasks", key, { model: "atrium-local-1", input: { prompt: "hi" } })
      assert.strictEqual(byKey.status, 403)
      assert.strictEqual(byKey.body.code, "not_entitled")
      const expired = yield* send("GET", path, { key: "at_000000000000000000000000000000000" })
      assert.strictEqual(expired.status, 401)
      assert.strictEqual(expired.body.code, "invalid_session")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("audit: admins page through entries with actor, action, target, time and request id", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      // Lists are ordered by time (then id): the key comes a second after the team's own entries.
      yield* TestClock.adjust("1 second")
      const created = yield* sendJson("POST", "/api/mobile/api-keys", team.admin.token, { name: "ci" }, { "x-request-id": "req-audit-1" })
      assert.strictEqual(created.status, 201)
      const page = yield* send("GET", "/api/mobile/audit?limit=1", { key: team.admin.token })
      assert.strictEqual(page.status, 200, page.text)
      const [entry] = records(page.body.data)
      assert.deepInclude(entry, { action: "api_key.created", requestId: "req-audit-1", target: member(created.body.apiKey, "id") })
      assert.strictEqual(member(entry?.actor, "type"), "user")
      assert.isString(page.body.nextCursor)
      const next = yield* send("GET", `/api/mobile/audit?limit=1&cursor=${String(page.body.nextCursor)}`, { key: team.admin.token })
      assert.strictEqual(next.status, 200)
      assert.notStrictEqual(member(records(next.body.data)[0], "id"), entry?.id)
      assert.strictEqual((yield* send("GET", "/api/mobile/audit?limit=0", { key: team.admin.token })).status, 400)
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("mobile webhooks act in the active workspace: the same endpoints /api/v1 sees, events and catalog routed", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const created = yield* sendJson("POST", "/api/mobile/webhooks", team.admin.token, { url: "https://hooks.example.com/m" })
      assert.strictEqual(created.status, 201, created.text)
      assert.match(String(created.body.secret), /^whsec_/)
      const keyReply = yield* sendJson("POST", "/api/mobile/api-keys", team.owner.token, { name: "r" })
      const listed = yield* send("GET", "/api/v1/webhook-endpoints", { key: String(keyReply.body.key) })
      assert.deepStrictEqual(records(listed.body.data).map((e) => e.id), [created.body.id])
      const events = yield* send("GET", "/api/mobile/webhooks/events", { key: team.admin.token })
      assert.strictEqual(events.status, 200, events.text)
      assert.isArray(events.body.data)
      const types = yield* send("GET", "/api/mobile/webhooks/event-types", { key: team.admin.token })
      assert.strictEqual(types.status, 200, types.text)
      assert.isNotEmpty(records(types.body.data))
      const updated = yield* sendJson("PATCH", `/api/mobile/webhooks/${String(created.body.id)}`, team.owner.token, { description: "d" })
      assert.strictEqual(updated.status, 200, updated.text)
      assert.strictEqual(updated.body.description, "d")
      const byMember = yield* send("GET", "/api/mobile/webhooks", { key: team.member.token })
      assert.strictEqual(byMember.status, 403)
      assert.strictEqual(byMember.body.code, "forbidden")
    }).pipe(Effect.provide(AppUnderTest())))

  it.effect("mobile and v1 webhook operations share their request and response schemas in their two OpenAPI documents", () =>
    Effect.gen(function*() {
      const v1Reply = yield* send("GET", "/api/v1/openapi")
      const reply = yield* send("GET", "/api/mobile/openapi")
      assert.strictEqual(v1Reply.status, 200)
      assert.strictEqual(reply.status, 200)
      // Each document has its own paths; the pairs are compared across them.
      const paths = { ...Object(member(v1Reply.body, "paths")), ...Object(member(reply.body, "paths")) }
      const toOpenApi = (path: string) => path.replace(":id", "{id}")
      const pairs: Array<readonly [string, string]> = []
      for (const kind of ["endpoints", "events", "eventTypes"] as const) {
        pairs.push([`/api/v1${v1WebhookPaths[kind]}`, `/api/mobile${mobileWebhookPaths[kind]}`])
      }
      for (const suffix of ["/{id}", "/{id}/rotate-secret", "/{id}/test", "/{id}/recover", "/{id}/deliveries"]) {
        pairs.push([`/api/v1${v1WebhookPaths.endpoints}${suffix}`, `/api/mobile${mobileWebhookPaths.endpoints}${suffix}`])
      }
      pairs.push([`/api/v1${v1WebhookPaths.deliveries}/{id}`, `/api/mobile${mobileWebhookPaths.deliveries}/{id}`])
      pairs.push([`/api/v1${v1WebhookPaths.deliveries}/{id}/replay`, `/api/mobile${mobileWebhookPaths.deliveries}/{id}/replay`])
      let refs = 0
      for (const [v1, mobile] of pairs) {
        const a = member(paths, toOpenApi(v1))
        const b = member(paths, toOpenApi(mobile))
        assert.isTrue(isRecord(a) && isRecord(b), `${v1} / ${mobile}`)
        assert.deepStrictEqual(Object.keys(Object(a)).sort(), Object.keys(Object(b)).sort(), v1)
        for (const method of Object.keys(Object(a))) {
          const body = (path: unknown) => member(member(member(member(path, method), "requestBody"), "content"), "application/json")
          assert.deepStrictEqual(body(b), body(a), `${method} ${v1} request`)
          const responses = (path: unknown) => member(member(path, method), "responses")
          for (const status of Object.keys(Object(responses(a))).filter((s) => s.startsWith("2"))) {
            const schemaOf = (path: unknown) => member(member(member(member(responses(path), status), "content"), "application/json"), "schema")
            assert.deepStrictEqual(schemaOf(b), schemaOf(a), `${method} ${v1} ${status}`)
            if (typeof member(schemaOf(a), "$ref") === "string") refs++
          }
          if (typeof member(member(body(a), "schema"), "$ref") === "string") refs++
        }
      }
      assert.isAtLeast(refs, 14)
      // One front door: both interfaces document the one bearer scheme (which credential each takes is in its description).
      assert.deepStrictEqual(member(member(member(paths, "/api/mobile/webhooks"), "get"), "security"), [{ bearer: [] }])
      assert.deepStrictEqual(member(member(member(paths, "/api/v1/webhook-endpoints"), "get"), "security"), [{ bearer: [] }])
      assert.include(reply.text, "invalid_credentials")
      assert.include(reply.text, "precondition_required")
    }).pipe(Effect.provide(AppUnderTest())))
})
