import { Context, DateTime, Duration, Effect, Layer, Option, Result } from "effect"
import { actorOf, type Forbidden, type InsufficientScope, permits, type Principal } from "../access/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { EntitlementRepository, NotEntitled } from "../entitlements/index.ts"
import {
  type Actor,
  Conflict,
  DomainId,
  IdGenerator,
  InvalidInput,
  NotFound,
  type Page,
  type PageRequest,
  RateLimited,
  SecureRandom,
  systemActor,
  Transactor,
  type Unavailable,
  type WorkQueue
} from "../shared/index.ts"
import {
  applyCheck,
  type CheckedDomain,
  CustomDomain,
  type DnsCheck,
  holdsHostname,
  loseHostname,
  restartVerification,
  VerificationToken
} from "./custom-domain.ts"
import { DnsLookupFailed, DnsResolver } from "./dns-resolver.ts"
import { DomainTaken } from "./domain-errors.ts"
import { CustomDomainEvents, toDomainSummary } from "./domain-events.ts"
import { customDomainFeature, defaultDomainPolicy, type DomainPolicy } from "./domain-policy.ts"
import { DomainRepository } from "./domain-repository.ts"
import { isDeniedHostname, normalizeHostname } from "./hostname.ts"

/** What adding a domain needs: the hostname as typed (normalised here). */
export interface CreateDomainInput {
  readonly hostname: string
}

/** Every way reading is refused. */
export type DomainReadError = Forbidden | InsufficientScope | Unavailable

const checkerActor = systemActor("domain-verification")
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/**
 * Custom domains: a workspace proves it controls a hostname with a TXT record. Every method checks the principal's
 * permission itself, so embedders get the same answers as HTTP callers; `queue` is the verification worker's.
 */
export class CustomDomains extends Context.Service<CustomDomains, {
  readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<CustomDomain>, DomainReadError>
  /** Another workspace's domain is not found. */
  readonly get: (principal: Principal, id: DomainId) => Effect.Effect<CustomDomain, NotFound | DomainReadError>
  /** Adds a pending domain with a fresh token; needs the `domains.custom` feature; at most 20 per workspace. */
  readonly create: (
    principal: Principal,
    input: CreateDomainInput
  ) => Effect.Effect<CustomDomain, InvalidInput | NotEntitled | Conflict | NotFound | DomainReadError>
  readonly remove: (principal: Principal, id: DomainId) => Effect.Effect<void, NotFound | DomainReadError>
  /**
   * Checks now (at most once per 10 s per domain). A failed domain starts a fresh window. Fails with `DomainTaken`
   * when another workspace holds the hostname and this workspace's own proof is not published yet.
   */
  readonly verify: (principal: Principal, id: DomainId) => Effect.Effect<CustomDomain, NotFound | DomainTaken | RateLimited | DomainReadError>
  /** Leases up to `limit` domains due for a check. */
  readonly claim: (limit: number) => Effect.Effect<ReadonlyArray<CustomDomain>, Unavailable>
  /** One whole check of a claimed domain: the lookups, the transition, the takeover, the events; the domain as it now stands. */
  readonly check: (domain: CustomDomain) => Effect.Effect<Option.Option<CustomDomain>, Unavailable>
  /** The verification work for `runWorker`. */
  readonly queue: WorkQueue<CustomDomain>
  /** The policy in force (for views: `nextAction` names its deadlines). */
  readonly policy: DomainPolicy
}>()("@atrium/domain/CustomDomains") {
  static readonly layerWith = (policy: DomainPolicy) =>
    Layer.effect(
      CustomDomains,
      Effect.gen(function*() {
        const repo = yield* DomainRepository
        const entitlements = yield* EntitlementRepository
        const resolver = yield* DnsResolver
        const tx = yield* Transactor
        const ids = yield* IdGenerator
        const random = yield* SecureRandom
        const changes = yield* ChangeLog

        const newToken = random.bytes(16).pipe(Effect.map((bytes) => VerificationToken.make(toHex(bytes))))

        const find = Effect.fnUntraced(function*(principal: Principal, id: DomainId) {
          const found = yield* repo.findById(principal.workspaceId, id)
          if (Option.isNone(found)) return yield* new NotFound({ resource: "domain" })
          return found.value
        })

        // A resolver that hangs is a lookup that could not be made, like any other.
        const lookup = <A>(effect: Effect.Effect<A, DnsLookupFailed>) =>
          effect.pipe(
            Effect.timeoutOption(policy.lookupTimeout),
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new DnsLookupFailed({ reason: "timeout", detail: `no answer within ${Duration.format(policy.lookupTimeout)}` })),
              onSome: Effect.succeed
            })),
            Effect.result
          )

        const lookups = (domain: CustomDomain): Effect.Effect<DnsCheck> =>
          Effect.all({ txt: lookup(resolver.resolveTxt(domain.challengeName)), cname: lookup(resolver.resolveCname(domain.hostname)) }, {
            concurrency: 2
          })

        const recordTransition = Effect.fnUntraced(function*(checked: CheckedDomain, actor: Actor) {
          const domain = checked.domain
          const base = { workspaceId: domain.workspaceId, actor, target: domain.id }
          switch (checked.transition) {
            case undefined:
              return
            case "verified":
              return yield* changes.record({ ...base, action: "domain.verified", event: emit(CustomDomainEvents.verified, { domain: toDomainSummary(domain) }) })
            case "misconfigured":
              return yield* changes.record({
                ...base,
                action: "domain.misconfigured",
                event: emit(CustomDomainEvents.misconfigured, { domain: toDomainSummary(domain), reason: "proof_missing" })
              })
            case "verification_failed":
              return yield* changes.record({
                ...base,
                action: "domain.verification_failed",
                event: emit(CustomDomainEvents.verificationFailed, { domain: toDomainSummary(domain) })
              })
          }
        })

        /**
         * Looks the domain up, then in one transaction: locks every workspace's row for the hostname, applies the check,
         * and when it verifies takes the hostname from whoever held it. `manual` audits the check itself as well.
         */
        const runCheck = Effect.fnUntraced(function*(claimed: CustomDomain, manual: Option.Option<Actor>) {
          const seen = yield* lookups(claimed)
          return yield* tx.withTransaction(Effect.gen(function*() {
            const rows = yield* repo.lockHostname(claimed.hostname)
            const current = rows.find((row) => row.id === claimed.id)
            if (current === undefined) return { domain: Option.none<CustomDomain>(), takenElsewhere: false }
            const now = yield* DateTime.now
            const start = current.status === "verification_failed" && Option.isSome(manual) ? restartVerification(current, now) : current
            const checked = applyCheck(start, seen, now, policy)
            const holders = rows.filter((row) => row.id !== current.id && holdsHostname(row))
            if (checked.transition === "verified") {
              for (const holder of holders) {
                const lost = loseHostname(holder, now, yield* newToken, policy)
                yield* repo.update(lost)
                yield* changes.record({
                  workspaceId: lost.workspaceId,
                  actor: checkerActor,
                  action: "domain.misconfigured",
                  target: lost.id,
                  event: emit(CustomDomainEvents.misconfigured, { domain: toDomainSummary(lost), reason: "claimed_elsewhere" })
                })
              }
            }
            yield* repo.update(checked.domain)
            if (Option.isSome(manual)) {
              yield* changes.record({ workspaceId: current.workspaceId, actor: manual.value, action: "domain.checked", target: current.id })
            }
            yield* recordTransition(checked, Option.getOrElse(manual, () => checkerActor))
            const takenElsewhere = checked.domain.status !== "verified" && holders.some((holder) => holder.status === "verified")
            return { domain: Option.some(checked.domain), takenElsewhere }
          }))
        })

        const list = Effect.fn("CustomDomains.list")(function*(principal: Principal, page: PageRequest) {
          yield* permits(principal, "domains.read")
          return yield* repo.list(principal.workspaceId, page)
        })

        const get = Effect.fn("CustomDomains.get")(function*(principal: Principal, id: DomainId) {
          yield* permits(principal, "domains.read")
          return yield* find(principal, id)
        })

        const create = Effect.fn("CustomDomains.create")(function*(principal: Principal, input: CreateDomainInput) {
          yield* permits(principal, "domains.manage")
          const normal = normalizeHostname(input.hostname)
          if (Result.isFailure(normal)) return yield* new InvalidInput({ detail: normal.failure })
          const hostname = normal.success
          if (isDeniedHostname(hostname, policy.deniedSuffixes)) {
            return yield* new InvalidInput({ detail: `${hostname} is reserved and cannot be added as a custom domain` })
          }
          const now = yield* DateTime.now
          const grants = yield* entitlements.listByWorkspace(principal.workspaceId)
          if (!grants.some((grant) => grant.feature === customDomainFeature && grant.isActiveAt(now))) {
            return yield* new NotEntitled({ feature: customDomainFeature })
          }
          const actor = actorOf(principal)
          const domain = new CustomDomain({
            id: DomainId.make(yield* ids.make("dom")),
            workspaceId: principal.workspaceId,
            hostname,
            status: "pending_verification",
            token: yield* newToken,
            misconfiguredReason: Option.none(),
            observed: Option.none(),
            verifiedAt: Option.none(),
            lastCheckedAt: Option.none(),
            pendingSince: now,
            proofMissingSince: Option.none(),
            checks: 0,
            // The first check runs at once; the backoff starts after it.
            nextCheckAt: Option.some(now),
            createdBy: actor,
            createdAt: now,
            updatedAt: now
          })
          yield* tx.withTransaction(Effect.gen(function*() {
            if ((yield* repo.count(principal.workspaceId)) >= policy.maxPerWorkspace) {
              return yield* new Conflict({ detail: `a workspace may have at most ${policy.maxPerWorkspace} custom domains` })
            }
            yield* repo.insert(domain)
            yield* changes.record({ workspaceId: domain.workspaceId, actor, action: "domain.created", target: domain.id })
          }))
          return domain
        })

        const remove = Effect.fn("CustomDomains.remove")(function*(principal: Principal, id: DomainId) {
          yield* permits(principal, "domains.manage")
          yield* tx.withTransaction(Effect.gen(function*() {
            if (!(yield* repo.delete(principal.workspaceId, id))) return yield* new NotFound({ resource: "domain" })
            yield* changes.record({ workspaceId: principal.workspaceId, actor: actorOf(principal), action: "domain.deleted", target: id })
          }))
        })

        const verify = Effect.fn("CustomDomains.verify")(function*(principal: Principal, id: DomainId) {
          yield* permits(principal, "domains.manage")
          const current = yield* find(principal, id)
          const now = yield* DateTime.now
          if (Option.isSome(current.lastCheckedAt)) {
            const wait = DateTime.toEpochMillis(current.lastCheckedAt.value) + Duration.toMillis(policy.manualCheckInterval) - DateTime.toEpochMillis(now)
            if (wait > 0) {
              const retryAfter = Math.max(1, Math.ceil(wait / 1000))
              return yield* new RateLimited({
                retryAfter,
                limit: 1,
                windowSeconds: Math.ceil(Duration.toSeconds(policy.manualCheckInterval)),
                detail: `This domain was checked moments ago; check it again in ${retryAfter} seconds`
              })
            }
          }
          const result = yield* runCheck(current, Option.some(actorOf(principal)))
          if (Option.isNone(result.domain)) return yield* new NotFound({ resource: "domain" })
          if (result.takenElsewhere) {
            const domain = result.domain.value
            return yield* new DomainTaken({
              hostname: domain.hostname,
              detail: `Another workspace has verified ${domain.hostname}. Publish a TXT record named ${domain.challengeName} with the value ${domain.proofValue}, then verify again to claim it.`
            })
          }
          return result.domain.value
        })

        const claim = Effect.fn("CustomDomains.claim")(function*(limit: number) {
          const now = yield* DateTime.now
          return yield* repo.claimDue(now, limit, DateTime.addDuration(now, policy.lease))
        })

        const check = Effect.fn("CustomDomains.check")(function*(domain: CustomDomain) {
          return (yield* runCheck(domain, Option.none())).domain
        })

        const queue: WorkQueue<CustomDomain> = { name: "domain-verification", claim, step: check }

        return CustomDomains.of({ list, get, create, remove, verify, claim, check, queue, policy })
      })
    )

  static readonly layer = CustomDomains.layerWith(defaultDomainPolicy)
}
