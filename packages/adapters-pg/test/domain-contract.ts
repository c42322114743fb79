import {
  CustomDomain,
  CustomDomains,
  DnsObservation,
  DomainId,
  DomainRepository,
  DomainTaken,
  Entitlement,
  EntitlementRepository,
  Feature,
  Hostname,
  SessionId,
  SessionPrincipal,
  systemActor,
  UserId,
  VerificationToken,
  type WorkspaceId
} from "@atrium/domain"
import { Domain, records, setZone } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Layer, Option } from "effect"
import type { Ports } from "../src/index.ts"
import { decodeCursor } from "../src/index.ts"
import { at, token } from "./fixtures.ts"
import { collectPages, seedWorkspace } from "./repository-contract.ts"

/** A stored-shape domain with every optional field set, not in the queue unless told. */
export const makeDomain = (workspaceId: WorkspaceId, overrides: Partial<CustomDomain> = {}): CustomDomain =>
  new CustomDomain({
    id: DomainId.make(`dom_${token()}`),
    workspaceId,
    hostname: Hostname.make(`h${token()}.example.com`),
    status: "pending_verification",
    token: VerificationToken.make(token().padEnd(32, "0").slice(0, 32)),
    misconfiguredReason: Option.none(),
    observed: Option.none(),
    verifiedAt: Option.none(),
    lastCheckedAt: Option.none(),
    pendingSince: at(0),
    proofMissingSince: Option.none(),
    checks: 0,
    nextCheckAt: Option.none(),
    createdBy: systemActor("test"),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides
  })

// Queue tests run in 1990, before anything the services (on the real clock) put in the queue.
const past = (seconds: number) => DateTime.makeUnsafe(Date.UTC(1990, 0, 1) + seconds * 1000)

const admin = (workspaceId: WorkspaceId) =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_contract"), userId: UserId.make("usr_contract"), workspaceId, role: "admin" })

const entitled = Effect.gen(function*() {
  const workspace = yield* seedWorkspace
  yield* (yield* EntitlementRepository).upsert(
    new Entitlement({ workspaceId: workspace.id, feature: Feature.make("domains.custom"), source: "plan", sourceRef: "", grantedAt: at(0), expiresAt: Option.none() })
  )
  return workspace
})

/** The domain port against one storage target (in memory or Postgres), and the service's takeover over it. */
export const domainContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(
    Domain.layerOver(target),
    { timeout: "60 seconds", excludeTestServices: true }
  )(`custom domain port on ${label}`, (it) => {
    it.effect("domains round-trip every field and are found only within their workspace; a hostname once per workspace", () =>
      Effect.gen(function*() {
        const repo = yield* DomainRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const bare = makeDomain(workspace.id)
        const full = makeDomain(workspace.id, {
          hostname: Hostname.make(`xn--bcher-kva.${token()}.example`),
          status: "misconfigured",
          misconfiguredReason: Option.some("proof_missing"),
          observed: Option.some(new DnsObservation({ txt: ["v=spf1 -all", "atrium-verify=x y \"z\" é"], cname: Option.some("edge.example.net"), checkedAt: at(40), error: Option.some("servfail: upstream") })),
          verifiedAt: Option.some(at(10)),
          lastCheckedAt: Option.some(at(40)),
          proofMissingSince: Option.some(at(20)),
          checks: 7,
          nextCheckAt: Option.some(at(86_400)),
          createdBy: { type: "user", id: "usr_1" },
          updatedAt: at(40)
        })
        const emptyObservation = makeDomain(workspace.id, { observed: Option.some(new DnsObservation({ txt: [], cname: Option.none(), checkedAt: at(5), error: Option.none() })) })
        yield* Effect.forEach([bare, full, emptyObservation], repo.insert, { discard: true })
        for (const domain of [bare, full, emptyObservation]) {
          const found = yield* repo.findById(workspace.id, domain.id)
          assert.deepStrictEqual(found, Option.some(domain))
        }
        assert.isTrue(Option.isNone(yield* repo.findById(other.id, bare.id)))
        const twin = yield* repo.insert(makeDomain(workspace.id, { hostname: bare.hostname })).pipe(Effect.flip)
        assert.strictEqual(twin._tag, "Conflict")
        // Another workspace may claim the same hostname (ownership is the domain's rule, not the table's).
        yield* repo.insert(makeDomain(other.id, { hostname: bare.hostname }))
        assert.strictEqual(yield* repo.count(workspace.id), 3)
        assert.strictEqual(yield* repo.count(other.id), 1)
      }))

    it.effect("update replaces the mutable fields; delete is scoped to the workspace", () =>
      Effect.gen(function*() {
        const repo = yield* DomainRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const domain = makeDomain(workspace.id)
        yield* repo.insert(domain)
        const changed = new CustomDomain({
          ...domain,
          status: "verified",
          token: VerificationToken.make("ab".repeat(16)),
          verifiedAt: Option.some(at(60)),
          observed: Option.some(new DnsObservation({ txt: [domain.proofValue], cname: Option.none(), checkedAt: at(60), error: Option.none() })),
          lastCheckedAt: Option.some(at(60)),
          checks: 0,
          nextCheckAt: Option.some(at(86_460)),
          updatedAt: at(60)
        })
        yield* repo.update(changed)
        assert.deepStrictEqual(yield* repo.findById(workspace.id, domain.id), Option.some(changed))
        assert.isFalse(yield* repo.delete(other.id, domain.id))
        assert.isTrue(yield* repo.delete(workspace.id, domain.id))
        assert.isFalse(yield* repo.delete(workspace.id, domain.id))
        assert.isTrue(Option.isNone(yield* repo.findById(workspace.id, domain.id)))
      }))

    it.effect("lists newest first, page by page with the shared cursor format, and locks a hostname across workspaces", () =>
      Effect.gen(function*() {
        const repo = yield* DomainRepository
        const workspace = yield* seedWorkspace
        const other = yield* seedWorkspace
        const created = [0, 10, 10, 20, 30].map((s) => makeDomain(workspace.id, { createdAt: at(s) }))
        yield* Effect.forEach(created, repo.insert, { discard: true })
        const shared = makeDomain(other.id, { hostname: created[0]?.hostname ?? Hostname.make("x.example.com") })
        yield* repo.insert(shared)
        const pages = yield* collectPages((page) => repo.list(workspace.id, page), 2)
        assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1])
        const expected = [...created].sort((a, b) => DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || (a.id < b.id ? 1 : -1))
        assert.deepStrictEqual(pages.flat().map((d) => d.id), expected.map((d) => d.id))
        const first = yield* repo.list(workspace.id, { limit: 2, cursor: undefined })
        const last = first.data.at(-1)
        // Both implementations write the cursor the Postgres adapter decodes: `(createdAt, id)` of the last row.
        assert.deepStrictEqual(
          Option.map(decodeCursor(first.nextCursor ?? undefined), (p) => [DateTime.toEpochMillis(p.createdAt), p.id]),
          Option.some([DateTime.toEpochMillis(last?.createdAt ?? at(-1)), last?.id ?? ""])
        )
        const locked = yield* repo.lockHostname(shared.hostname)
        assert.deepStrictEqual(locked.map((d) => d.id), [created[0]?.id ?? "", shared.id].sort())
      }))

    it.effect("claims only due domains, soonest first, leased until the lease ends; concurrent claims never overlap", () =>
      Effect.gen(function*() {
        const repo = yield* DomainRepository
        const workspace = yield* seedWorkspace
        const due = [30, 10, 20].map((s) => makeDomain(workspace.id, { nextCheckAt: Option.some(past(s)) }))
        const later = makeDomain(workspace.id, { nextCheckAt: Option.some(past(500)) })
        const never = makeDomain(workspace.id, { status: "verification_failed" })
        yield* Effect.forEach([...due, later, never], repo.insert, { discard: true })
        const claimed = yield* repo.claimDue(past(100), 2, past(160))
        assert.deepStrictEqual(claimed.map((d) => d.id), [due[1]?.id, due[2]?.id])
        assert.deepStrictEqual(claimed.map((d) => Option.map(d.nextCheckAt, DateTime.toEpochMillis)), [Option.some(DateTime.toEpochMillis(past(160))), Option.some(DateTime.toEpochMillis(past(160)))])
        assert.deepStrictEqual((yield* repo.claimDue(past(100), 10, past(160))).map((d) => d.id), [due[0]?.id])
        assert.deepStrictEqual(yield* repo.claimDue(past(150), 10, past(210)), [])
        // The leases end at 160: those three come back, with the one due at 500 still waiting.
        const again = yield* repo.claimDue(past(160), 10, past(220))
        assert.sameMembers(again.map((d) => d.id), due.map((d) => d.id))
        // While the three above are still leased (until 220), four claimers race for six new ones.
        const racing = [...Array(6)].map(() => makeDomain(workspace.id, { nextCheckAt: Option.some(past(200)) }))
        yield* Effect.forEach(racing, repo.insert, { discard: true })
        const claims = yield* Effect.all([...Array(4)].map(() => repo.claimDue(past(200), 2, past(260))), { concurrency: "unbounded" })
        const ids = claims.flat().map((d) => d.id)
        assert.strictEqual(new Set(ids).size, ids.length)
        assert.sameMembers(ids, racing.map((d) => d.id))
        // Out of the 1990 queue, so later runs on the same database start clean.
        yield* Effect.forEach([...due, later, ...racing], (d) => repo.update(new CustomDomain({ ...d, nextCheckAt: Option.none() })), { discard: true })
      }))

    it.effect("through the service: a second workspace's own proof takes the hostname, in one transaction", () =>
      Effect.gen(function*() {
        const domains = yield* CustomDomains
        const first = yield* entitled
        const second = yield* entitled
        const hostname = `${token()}.example.com`
        const mine = yield* domains.create(admin(first.id), { hostname })
        yield* setZone(mine.challengeName, records([mine.proofValue]))
        assert.strictEqual((yield* domains.verify(admin(first.id), mine.id)).status, "verified")
        const theirs = yield* domains.create(admin(second.id), { hostname })
        assert.instanceOf(yield* domains.verify(admin(second.id), theirs.id).pipe(Effect.flip), DomainTaken)
        yield* setZone(mine.challengeName, records([mine.proofValue, theirs.proofValue]))
        const repo = yield* DomainRepository
        // Skip the 10-second manual limit by letting the worker's check take it.
        const taken = Option.getOrThrow(yield* domains.check(Option.getOrThrow(yield* repo.findById(second.id, theirs.id))))
        assert.strictEqual(taken.status, "verified")
        const lost = Option.getOrThrow(yield* repo.findById(first.id, mine.id))
        assert.strictEqual(lost.status, "misconfigured")
        assert.deepStrictEqual(lost.misconfiguredReason, Option.some("claimed_elsewhere"))
        assert.notStrictEqual(lost.token, mine.token)
      }))
  })
