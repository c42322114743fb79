import { assert, describe, it } from "@effect/vitest"
import {
  ApiKeyId,
  ApiKeyPrincipal,
  CustomDomains,
  DomainId,
  DomainTaken,
  Entitlements,
  Feature,
  Forbidden,
  InsufficientScope,
  InvalidInput,
  NotEntitled,
  NotFound,
  RateLimited,
  runWorker,
  SessionId,
  SessionPrincipal,
  UserId,
  Workspaces,
  type Role,
  Conflict
} from "@atrium/domain"
import { DnsZone, Domain, lookupFails, lookupHangs, MemoryStore, records, setZone, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Fiber, Option, Ref } from "effect"
import { TestClock } from "effect/testing"

const hostname = "app.example.com"
const challenge = `_atrium-challenge.${hostname}`

const principal = (workspaceId: SessionPrincipal["workspaceId"], role: Role) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_test"), userId: UserId.make(`usr_${role}`), workspaceId, role })

/** A workspace with the `domains.custom` feature (unless told otherwise), and its admin and member. */
const workspace = (entitled = true) =>
  Effect.gen(function*() {
    const created = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    if (entitled) yield* (yield* Entitlements).grant(systemPrincipal(created.id), { feature: Feature.make("domains.custom"), source: "plan" })
    return { workspace: created, admin: principal(created.id, "admin"), member: principal(created.id, "member") }
  })

const add = (who: SessionPrincipal, name = hostname) => Effect.flatMap(CustomDomains, (domains) => domains.create(who, { hostname: name }))

/** One worker pass: claim what is due and check each. */
const pass = Effect.gen(function*() {
  const domains = yield* CustomDomains
  return yield* Effect.forEach(yield* domains.claim(100), domains.check)
})

const stored = (id: DomainId) =>
  Effect.gen(function*() {
    const found = (yield* Ref.get((yield* MemoryStore).state)).domains.get(id)
    return found ?? assert.fail(`domain ${id} is gone`)
  })

const events = Effect.gen(function*() {
  return (yield* Ref.get((yield* MemoryStore).state)).events
    .filter((e) => e.type.startsWith("domain."))
    .map((e) => ({ type: e.type, workspaceId: e.workspaceId }))
})
const auditActions = Effect.gen(function*() {
  return (yield* Ref.get((yield* MemoryStore).state)).audit.map((a) => a.action)
})

const publish = (...values: ReadonlyArray<string>) => setZone(challenge, records(values))

const verifiedDomain = Effect.gen(function*() {
  const team = yield* workspace()
  const domain = yield* add(team.admin)
  yield* publish(domain.proofValue)
  yield* pass
  const verified = yield* stored(domain.id)
  assert.strictEqual(verified.status, "verified")
  return { ...team, domain: verified }
})

describe("custom domains: creation, roles, entitlement, workspaces", () => {
  it.effect("an admin adds a normalised hostname; it is pending with a TXT next action, audited", () =>
    Effect.gen(function*() {
      const { admin } = yield* workspace()
      const domain = yield* add(admin, "App.Example.COM.")
      assert.strictEqual(domain.hostname, hostname)
      assert.strictEqual(domain.status, "pending_verification")
      assert.match(domain.proofValue, /^atrium-verify=[0-9a-f]{32}$/)
      assert.strictEqual(domain.challengeName, challenge)
      assert.deepStrictEqual(yield* auditActions, ["workspace.created", "entitlement.granted", "domain.created"])
      const again = yield* add(admin).pipe(Effect.flip)
      assert.instanceOf(again, Conflict)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("members read but cannot change; keys read with `read` and never change (domains.manage is for members)", () =>
    Effect.gen(function*() {
      const { admin, member, workspace: ws } = yield* workspace()
      const domains = yield* CustomDomains
      const domain = yield* add(admin)
      assert.instanceOf(yield* add(member, "other.example.com").pipe(Effect.flip), Forbidden)
      assert.instanceOf(yield* domains.remove(member, domain.id).pipe(Effect.flip), Forbidden)
      assert.instanceOf(yield* domains.verify(member, domain.id).pipe(Effect.flip), Forbidden)
      assert.strictEqual((yield* domains.get(member, domain.id)).id, domain.id)
      assert.strictEqual((yield* domains.list(member, { limit: 20, cursor: undefined })).data.length, 1)
      const readKey = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_read"), workspaceId: ws.id, scopes: ["read"] })
      const noScope = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_none"), workspaceId: ws.id, scopes: ["ai_tasks:write"] })
      assert.strictEqual((yield* domains.list(readKey, { limit: 20, cursor: undefined })).data.length, 1)
      assert.instanceOf(yield* domains.list(noScope, { limit: 20, cursor: undefined }).pipe(Effect.flip), InsufficientScope)
      assert.instanceOf(yield* domains.create(readKey, { hostname: "k.example.com" }).pipe(Effect.flip), Forbidden)
      const writeKey = new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_write"), workspaceId: ws.id, scopes: ["write"] })
      assert.instanceOf(yield* domains.create(writeKey, { hostname: "k.example.com" }).pipe(Effect.flip), Forbidden)
      assert.instanceOf(yield* domains.verify(writeKey, domain.id).pipe(Effect.flip), Forbidden)
      assert.strictEqual((yield* domains.create(admin, { hostname: "k.example.com" })).createdBy.type, "user")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("creation needs the domains.custom feature (not_entitled), at most 20 per workspace, and a valid, allowed hostname", () =>
    Effect.gen(function*() {
      const unentitled = yield* workspace(false)
      const refused = yield* add(unentitled.admin).pipe(Effect.flip)
      assert.instanceOf(refused, NotEntitled)
      assert.strictEqual(refused.code, "not_entitled")
      const { admin } = yield* workspace()
      for (let i = 0; i < 20; i++) yield* add(admin, `d${i}.example.com`)
      const full = yield* add(admin, "d20.example.com").pipe(Effect.flip)
      assert.instanceOf(full, Conflict)
      assert.include(full.detail, "20")
      const { admin: other } = yield* workspace()
      assert.instanceOf(yield* add(other, "*.example.com").pipe(Effect.flip), InvalidInput)
      assert.instanceOf(yield* add(other, "203.0.113.7").pipe(Effect.flip), InvalidInput)
      assert.instanceOf(yield* add(other, "nas.local").pipe(Effect.flip), InvalidInput)
      assert.strictEqual((yield* add(other, "Bücher.example")).hostname, "xn--bcher-kva.example")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("another workspace's domain id is not found, for reading, verifying and deleting", () =>
    Effect.gen(function*() {
      const mine = yield* workspace()
      const theirs = yield* workspace()
      const domains = yield* CustomDomains
      const domain = yield* add(theirs.admin)
      assert.instanceOf(yield* domains.get(mine.admin, domain.id).pipe(Effect.flip), NotFound)
      assert.instanceOf(yield* domains.verify(mine.admin, domain.id).pipe(Effect.flip), NotFound)
      assert.instanceOf(yield* domains.remove(mine.admin, domain.id).pipe(Effect.flip), NotFound)
      assert.instanceOf(yield* domains.get(mine.admin, DomainId.make("dom_missing")).pipe(Effect.flip), NotFound)
      assert.strictEqual((yield* domains.list(mine.admin, { limit: 20, cursor: undefined })).data.length, 0)
      // Still there for its own workspace.
      assert.strictEqual((yield* domains.get(theirs.admin, domain.id)).id, domain.id)
      yield* domains.remove(theirs.admin, domain.id)
      assert.instanceOf(yield* domains.get(theirs.admin, domain.id).pipe(Effect.flip), NotFound)
      assert.include(yield* auditActions, "domain.deleted")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("custom domains: verification", () => {
  it.effect("the TXT proof verifies the domain, among several values and in any case; the event and audit entry are written", () =>
    Effect.gen(function*() {
      const { admin, workspace: ws } = yield* workspace()
      const domain = yield* add(admin)
      yield* publish("v=spf1 -all", "atrium-verify=0000", `  "${domain.proofValue.toUpperCase()}" `)
      const [checked] = yield* pass
      const after = Option.getOrThrow(checked ?? Option.none())
      assert.strictEqual(after.status, "verified")
      assert.deepStrictEqual(Option.map(after.verifiedAt, DateTime.toEpochMillis), Option.some(0))
      assert.deepStrictEqual(after.observed.pipe(Option.map((o) => o.txt.length)), Option.some(3))
      assert.deepStrictEqual(yield* events, [{ type: "domain.verified", workspaceId: ws.id }])
      assert.include(yield* auditActions, "domain.verified")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a mismatching value keeps it pending and records exactly what was seen", () =>
    Effect.gen(function*() {
      const { admin } = yield* workspace()
      const domain = yield* add(admin)
      yield* publish("atrium-verify=ffffffffffffffffffffffffffffffff")
      yield* setZone(hostname, records([], "target.example.net"))
      yield* pass
      const after = yield* stored(domain.id)
      assert.strictEqual(after.status, "pending_verification")
      const observed = Option.getOrThrow(after.observed)
      assert.deepStrictEqual(observed.txt, ["atrium-verify=ffffffffffffffffffffffffffffffff"])
      assert.deepStrictEqual(observed.cname, Option.some("target.example.net"))
      assert.deepStrictEqual(observed.error, Option.none())
      assert.deepStrictEqual(yield* events, [])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("SERVFAIL and a hanging resolver keep a verified domain verified and record the error", () =>
    Effect.gen(function*() {
      const { domain } = yield* verifiedDomain
      yield* TestClock.adjust("1 day")
      yield* setZone(challenge, lookupFails("servfail"))
      yield* pass
      const afterServfail = yield* stored(domain.id)
      assert.strictEqual(afterServfail.status, "verified")
      assert.deepStrictEqual(afterServfail.observed.pipe(Option.flatMap((o) => o.error)), Option.some("servfail: scripted servfail"))
      assert.isTrue(Option.isNone(afterServfail.proofMissingSince))
      // Daily rechecks for three days of failed lookups never start the grace.
      for (let day = 0; day < 4; day++) {
        yield* TestClock.adjust("1 day")
        yield* pass
      }
      assert.strictEqual((yield* stored(domain.id)).status, "verified")
      assert.deepStrictEqual((yield* events).map((e) => e.type), ["domain.verified"])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a lookup that never answers times out as an error, without a verdict", () =>
    Effect.gen(function*() {
      const { domain } = yield* verifiedDomain
      const domains = yield* CustomDomains
      yield* setZone(challenge, lookupHangs)
      yield* TestClock.adjust("1 day")
      // The resolver never answers: the domain's own lookup timeout (10 s) ends the wait.
      const hung = yield* domains.check(yield* stored(domain.id)).pipe(Effect.forkChild)
      yield* TestClock.adjust("10 seconds")
      const after = Option.getOrThrow(yield* Fiber.join(hung))
      assert.strictEqual(after.status, "verified")
      assert.deepStrictEqual(after.observed.pipe(Option.flatMap((o) => o.error)), Option.some("timeout: no answer within 10s"))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a verified domain without its proof keeps 72 hours of grace, then is misconfigured; the proof back verifies it again", () =>
    Effect.gen(function*() {
      const { domain, workspace: ws } = yield* verifiedDomain
      yield* publish()
      yield* TestClock.adjust("1 day")
      yield* pass
      const missing = yield* stored(domain.id)
      assert.strictEqual(missing.status, "verified")
      assert.deepStrictEqual(Option.map(missing.proofMissingSince, DateTime.toEpochMillis), Option.some(86_400_000))
      yield* TestClock.adjust("71 hours")
      yield* pass
      assert.strictEqual((yield* stored(domain.id)).status, "verified")
      yield* TestClock.adjust("1 hour")
      yield* pass
      const misconfigured = yield* stored(domain.id)
      assert.strictEqual(misconfigured.status, "misconfigured")
      assert.deepStrictEqual(misconfigured.misconfiguredReason, Option.some("proof_missing"))
      assert.deepStrictEqual((yield* events).map((e) => e.type), ["domain.verified", "domain.misconfigured"])
      yield* publish(domain.proofValue)
      yield* TestClock.adjust("1 day")
      yield* pass
      assert.strictEqual((yield* stored(domain.id)).status, "verified")
      assert.deepStrictEqual(yield* events, [
        { type: "domain.verified", workspaceId: ws.id },
        { type: "domain.misconfigured", workspaceId: ws.id },
        { type: "domain.verified", workspaceId: ws.id }
      ])
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a check can be asked for at most every 10 seconds", () =>
    Effect.gen(function*() {
      const { admin } = yield* workspace()
      const domains = yield* CustomDomains
      const domain = yield* add(admin)
      assert.strictEqual((yield* domains.verify(admin, domain.id)).status, "pending_verification")
      const limited = yield* domains.verify(admin, domain.id).pipe(Effect.flip)
      assert.instanceOf(limited, RateLimited)
      assert.strictEqual(limited.retryAfter, 10)
      yield* TestClock.adjust("10 seconds")
      yield* publish(domain.proofValue)
      assert.strictEqual((yield* domains.verify(admin, domain.id)).status, "verified")
      assert.includeMembers(yield* auditActions, ["domain.checked", "domain.verified"])
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("custom domains: ownership", () => {
  it.effect("a second workspace takes a verified hostname only with its own fresh proof; the first loses it for good", () =>
    Effect.gen(function*() {
      const first = yield* verifiedDomain
      const second = yield* workspace()
      const domains = yield* CustomDomains
      const claim = yield* add(second.admin)
      assert.notStrictEqual(claim.proofValue, first.domain.proofValue)
      // The first workspace's proof is published, not the second's: taken.
      const taken = yield* domains.verify(second.admin, claim.id).pipe(Effect.flip)
      assert.instanceOf(taken, DomainTaken)
      assert.strictEqual(taken.code, "domain_taken")
      assert.include(taken.detail, claim.proofValue)
      assert.strictEqual((yield* stored(claim.id)).status, "pending_verification")
      assert.strictEqual((yield* stored(first.domain.id)).status, "verified")

      // Both values published (the DNS owner added the second without removing the first): the new proof wins.
      yield* publish(first.domain.proofValue, claim.proofValue)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* domains.verify(second.admin, claim.id)).status, "verified")
      const lost = yield* stored(first.domain.id)
      assert.strictEqual(lost.status, "misconfigured")
      assert.deepStrictEqual(lost.misconfiguredReason, Option.some("claimed_elsewhere"))
      assert.notStrictEqual(lost.token, first.domain.token)
      assert.deepStrictEqual((yield* events).slice(-2), [
        { type: "domain.misconfigured", workspaceId: first.workspace.id },
        { type: "domain.verified", workspaceId: second.workspace.id }
      ])

      // The first workspace's old value is still published, but it no longer proves anything.
      yield* TestClock.adjust("10 seconds")
      const back = yield* domains.verify(first.admin, first.domain.id).pipe(Effect.flip)
      assert.instanceOf(back, DomainTaken)
      assert.strictEqual((yield* stored(claim.id)).status, "verified")

      // Its new value does: the hostname moves back, and the second workspace loses it the same way.
      yield* publish(first.domain.proofValue, claim.proofValue, lost.proofValue)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* domains.verify(first.admin, first.domain.id)).status, "verified")
      assert.strictEqual((yield* stored(claim.id)).status, "misconfigured")
    }).pipe(Effect.provide(Domain.layerMemory)))
})

describe("custom domains: the check schedule", () => {
  const minute = 60_000
  const checkTimes = Effect.gen(function*() {
    return (yield* Ref.get((yield* DnsZone).queries)).filter((q) => q.type === "TXT").map((q) => q.atMillis / minute)
  })

  it.effect("pending: checks at once, then 1 min, 5 min, 15 min, hourly; fails after 7 days and stops", () =>
    Effect.gen(function*() {
      const { admin, workspace: ws } = yield* workspace()
      const domain = yield* add(admin)
      // Follow the schedule: jump to each due time and run a worker pass.
      for (let guard = 0; guard < 500; guard++) {
        yield* pass
        const next = (yield* stored(domain.id)).nextCheckAt
        if (Option.isNone(next)) break
        yield* TestClock.setTime(DateTime.toEpochMillis(next.value))
      }
      const times = yield* checkTimes
      assert.deepStrictEqual(times.slice(0, 7), [0, 1, 6, 21, 81, 141, 201])
      assert.strictEqual(times.at(-1), 7 * 24 * 60)
      // Hourly after the first steps, never past the window.
      assert.isTrue(times.slice(5).every((t, i) => t - (times[i + 4] ?? 0) === 60 || t === 7 * 24 * 60))
      const failed = yield* stored(domain.id)
      assert.strictEqual(failed.status, "verification_failed")
      assert.isTrue(Option.isNone(failed.nextCheckAt))
      assert.deepStrictEqual(yield* events, [{ type: "domain.verification_failed", workspaceId: ws.id }])
      // A person asking again starts a fresh window.
      yield* publish(failed.proofValue)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual((yield* (yield* CustomDomains).verify(admin, domain.id)).status, "verified")
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("runWorker drives the same schedule on the clock, and a verified domain is rechecked daily", () =>
    Effect.gen(function*() {
      const { admin } = yield* workspace()
      const domains = yield* CustomDomains
      const domain = yield* add(admin)
      yield* runWorker(domains.queue, { idlePoll: "30 seconds" })
      yield* TestClock.adjust("22 minutes")
      assert.deepStrictEqual(yield* checkTimes, [0, 1, 6, 21])
      yield* publish(domain.proofValue)
      yield* TestClock.adjust("60 minutes")
      assert.strictEqual((yield* stored(domain.id)).status, "verified")
      const before = (yield* checkTimes).length
      yield* TestClock.adjust("1 day")
      assert.strictEqual((yield* checkTimes).length, before + 1)
      assert.strictEqual((yield* checkTimes).at(-1), 81 + 24 * 60)
    }).pipe(Effect.provide(Domain.layerMemory)))
})
