import { assert, describe, it } from "@effect/vitest"
import * as Domain from "@atrium/domain"
import {
  type Acting,
  ApiKeyId,
  ApiKeyPrincipal,
  type ApiKeyScope,
  AiTasks,
  ApiKeys,
  Appearance,
  AuditTrail,
  CustomDomains,
  DeliveryId,
  DomainId,
  Entitlements,
  Feature,
  FeatureRequestId,
  FeatureRequests,
  InvitationId,
  Invitations,
  isPermitted,
  memberOf,
  MembershipId,
  ModelCatalog,
  Members,
  OperatorPrincipal,
  type Permission,
  permits,
  type Principal,
  PurchaseId,
  Purchases,
  PushNotifications,
  RequestLogs,
  type Role,
  ScheduleId,
  Schedules,
  SessionId,
  SessionPrincipal,
  StoreNotificationId,
  SystemPrincipal,
  TaskId,
  Usage,
  UserId,
  WebhookEndpointId,
  WebhookEndpoints,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { Domain as Testing } from "@atrium/domain/testing"
import { Context, DateTime, Effect, Exit, Option, Redacted } from "effect"
import { team } from "../support/identity.ts"

// The domain enforces its policy itself: every caller-facing method of every domain service is called here with each
// principal that lacks the method's permission, through the in-memory layers with no HTTP in front, and must answer the
// domain's own refusal. The lists are checked against the services themselves, so a new method (or a new service) that
// is neither walked nor named as not caller-facing fails the coverage test below.

type Refusal = Effect.Effect<unknown, unknown>
/** One caller-facing method: the permission it asks, and a call as the given principal (the kinds it accepts). */
type Walked =
  | { readonly permission: Permission; readonly acting: (principal: Acting) => Refusal }
  | { readonly permission: Permission; readonly request: (principal: Principal) => Refusal }
  | { readonly permission: Permission; readonly system: (principal: SystemPrincipal) => Refusal }
  | { readonly permission: Permission; readonly operator: (principal: OperatorPrincipal) => Refusal }
  | { readonly permission: Permission; readonly anyone: (principal: Acting | OperatorPrincipal) => Refusal }
/** A method that is not caller-facing, and why (a worker step, a credential check, configuration). */
type Internal = { readonly internal: string }
type Entry = Walked | Internal

const page = { limit: 10, cursor: undefined }
const worker = { internal: "a worker's step: it runs as the system on rows it claimed" }

/** The walk: every method of every caller-facing service, in a workspace with an owner and another member. */
const walk = (ownerMembership: MembershipId) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    const logs = yield* RequestLogs
    const tasks = yield* AiTasks
    const usage = yield* Usage
    const entitlements = yield* Entitlements
    const workspaces = yield* Workspaces
    const endpoints = yield* WebhookEndpoints
    const domains = yield* CustomDomains
    const schedules = yield* Schedules
    const members = yield* Members
    const invitations = yield* Invitations
    const audit = yield* AuditTrail
    const appearance = yield* Appearance
    const board = yield* FeatureRequests
    const push = yield* PushNotifications
    const purchases = yield* Purchases
    const catalog = yield* ModelCatalog
    const endpoint = WebhookEndpointId.make("whe_walk")
    const schedule = ScheduleId.make("sch_walk")
    const feature = Feature.make("ai.basic")
    const request = FeatureRequestId.make("fr_walk")
    const task = { model: "atrium-local-1", input: { prompt: "hi" } }
    const registration = { expoPushToken: Redacted.make("ExponentPushToken[walk]"), platform: "ios" as const, appVersion: "1.0.0", locale: "en" }
    const services: Record<string, { readonly service: object; readonly methods: Record<string, Entry> }> = {
      ApiKeys: {
        service: keys,
        methods: {
          create: { permission: "api_keys.manage", acting: (p) => keys.create(p, { name: "walk" }) },
          roll: { permission: "api_keys.manage", acting: (p) => keys.roll(p, { id: ApiKeyId.make("key_walk") }) },
          revoke: { permission: "api_keys.manage", acting: (p) => keys.revoke(p, ApiKeyId.make("key_walk")) },
          list: { permission: "api_keys.manage", acting: (p) => keys.list(p, page) },
          authenticate: { internal: "a credential check: it makes the principal" }
        }
      },
      RequestLogs: {
        service: logs,
        methods: {
          list: { permission: "request_logs.read", acting: (p) => logs.list(p, {}, page) },
          record: { internal: "the HTTP host writing its own access log" },
          prune: worker
        }
      },
      AiTasks: {
        service: tasks,
        methods: {
          submit: { permission: "ai_tasks.submit", acting: (p) => tasks.submit(p, task) },
          get: { permission: "ai_tasks.read", acting: (p) => tasks.get(p, TaskId.make("task_walk")) },
          claim: worker,
          execute: worker,
          failDefect: worker
        }
      },
      Usage: {
        service: usage,
        methods: {
          current: { permission: "usage.read", acting: (p) => usage.current(p) },
          records: { permission: "usage.read", acting: (p) => usage.records(p, page) },
          addCredits: { permission: "billing.manage", acting: (p) => usage.addCredits(p, 1) },
          setCaps: { permission: "billing.manage", acting: (p) => usage.setCaps(p, { taskCap: 1 }) },
          creditOnce: { internal: "a purchase sync's credit, inside the sync its own permission allowed" }
        }
      },
      Entitlements: {
        service: entitlements,
        methods: {
          active: { permission: "entitlements.read", acting: (p) => entitlements.active(p) },
          grant: { permission: "entitlements.manage", acting: (p) => entitlements.grant(p, { feature, source: "plan" }) },
          revoke: { permission: "entitlements.manage", acting: (p) => entitlements.revoke(p, { feature }) },
          reconcileSource: { internal: "a purchase's grants, inside the sync or notification that changed the purchase" }
        }
      },
      Workspaces: {
        service: workspaces,
        methods: {
          create: { permission: "workspaces.create", anyone: (p) => workspaces.create(p, { name: "Walk" }) },
          get: { permission: "workspace.read", acting: (p) => workspaces.get(p) },
          count: { internal: "readiness and first-run seeding count workspaces, no caller's data" }
        }
      },
      WebhookEndpoints: {
        service: endpoints,
        methods: {
          create: { permission: "webhooks.write", request: (p) => endpoints.create(p, { url: "https://example.com/hook", eventTypes: ["webhook.test"] }) },
          list: { permission: "webhooks.read", request: (p) => endpoints.list(p, page) },
          get: { permission: "webhooks.read", request: (p) => endpoints.get(p, endpoint) },
          update: { permission: "webhooks.write", request: (p) => endpoints.update(p, endpoint, { enabled: false }) },
          remove: { permission: "webhooks.write", request: (p) => endpoints.remove(p, endpoint) },
          rotateSecret: { permission: "webhooks.write", acting: (p) => endpoints.rotateSecret(p, endpoint, undefined) },
          sendTest: { permission: "webhooks.write", request: (p) => endpoints.sendTest(p, endpoint) },
          deliveries: { permission: "webhooks.read", request: (p) => endpoints.deliveries(p, endpoint, undefined, page) },
          delivery: { permission: "webhooks.read", request: (p) => endpoints.delivery(p, DeliveryId.make("msg_walk")) },
          replay: { permission: "webhooks.write", request: (p) => endpoints.replay(p, DeliveryId.make("msg_walk")) },
          recover: { permission: "webhooks.write", request: (p) => endpoints.recover(p, endpoint, DateTime.makeUnsafe(0)) },
          events: { permission: "webhooks.read", request: (p) => endpoints.events(p, page) }
        }
      },
      CustomDomains: {
        service: domains,
        methods: {
          list: { permission: "domains.read", request: (p) => domains.list(p, page) },
          get: { permission: "domains.read", request: (p) => domains.get(p, DomainId.make("dom_walk")) },
          create: { permission: "domains.manage", request: (p) => domains.create(p, { hostname: "walk.example.com" }) },
          remove: { permission: "domains.manage", request: (p) => domains.remove(p, DomainId.make("dom_walk")) },
          verify: { permission: "domains.manage", request: (p) => domains.verify(p, DomainId.make("dom_walk")) },
          claim: worker,
          check: worker,
          queue: worker,
          policy: { internal: "configuration" }
        }
      },
      Schedules: {
        service: schedules,
        methods: {
          list: { permission: "schedules.read", request: (p) => schedules.list(p, page) },
          create: {
            permission: "schedules.write",
            request: (p) => schedules.create(p, { name: "walk", cron: "0 * * * *", timezone: "UTC", task })
          },
          get: { permission: "schedules.read", request: (p) => schedules.get(p, schedule) },
          update: { permission: "schedules.write", request: (p) => schedules.update(p, schedule, { name: "walked" }) },
          remove: { permission: "schedules.write", request: (p) => schedules.remove(p, schedule) },
          pause: { permission: "schedules.write", request: (p) => schedules.pause(p, schedule) },
          resume: { permission: "schedules.write", request: (p) => schedules.resume(p, schedule) },
          runNow: { permission: "schedules.write", request: (p) => schedules.runNow(p, schedule) },
          runs: { permission: "schedules.read", request: (p) => schedules.runs(p, schedule, page) },
          preview: { internal: "pure: the next times of a cron expression, no workspace's data" },
          claim: worker,
          fire: worker
        }
      },
      Members: {
        service: members,
        methods: {
          list: { permission: "members.manage", acting: (p) => members.list(p, page) },
          changeRole: { permission: "members.manage", acting: (p) => members.changeRole(p, ownerMembership, "member") },
          remove: { permission: "members.manage", acting: (p) => members.remove(p, ownerMembership) },
          addAsOperator: { permission: "members.manage", system: (p) => members.addAsOperator(p, { email: "walk@example.com", role: "member" }) }
        }
      },
      Invitations: {
        service: invitations,
        methods: {
          create: { permission: "invitations.manage", acting: (p) => invitations.create(p, { email: "walk@example.com", role: "member" }) },
          createAsOperator: {
            permission: "invitations.manage",
            system: (p) => invitations.createAsOperator(p, { email: "walk@example.com", role: "member" })
          },
          list: { permission: "invitations.manage", acting: (p) => invitations.list(p, page) },
          revoke: { permission: "invitations.manage", acting: (p) => invitations.revoke(p, InvitationId.make("inv_walk")) },
          accept: { internal: "a credential check: the invitation's token admits its invitee" }
        }
      },
      AuditTrail: {
        service: audit,
        methods: { list: { permission: "audit.read", acting: (p) => audit.list(p, page) } }
      },
      Appearance: {
        service: appearance,
        methods: {
          get: { permission: "appearance.read", acting: (p) => appearance.get(p) },
          put: { permission: "appearance.write", acting: (p) => appearance.put(p, {}, Option.none()) }
        }
      },
      FeatureRequests: {
        service: board,
        methods: {
          list: { permission: "workspace.read", acting: (p) => board.list(p, { status: undefined, sort: "top" }, page) },
          get: { permission: "workspace.read", acting: (p) => board.get(p, request) },
          create: { permission: "feature_requests.submit", acting: (p) => board.create(p, { title: "Walk", details: "" }, Option.none()) },
          vote: { permission: "feature_requests.submit", acting: (p) => board.vote(p, request) },
          unvote: { permission: "feature_requests.submit", acting: (p) => board.unvote(p, request) },
          changeStatus: { permission: "feature_requests.moderate", operator: (p) => board.changeStatus(p, request, "planned", Option.none()) },
          merge: { permission: "feature_requests.moderate", operator: (p) => board.merge(p, request, FeatureRequestId.make("fr_into")) }
        }
      },
      PushNotifications: {
        service: push,
        methods: {
          enabled: { internal: "configuration" },
          register: { permission: "workspace.read", acting: (p) => push.register(p, "walk-installation", registration) },
          unregister: { permission: "workspace.read", acting: (p) => push.unregister(p, "walk-installation") },
          devices: { permission: "workspace.read", acting: (p) => push.devices(p) },
          preferences: { permission: "workspace.read", acting: (p) => push.preferences(p) },
          setPreferences: { permission: "workspace.read", acting: (p) => push.setPreferences(p, { ai_tasks: true, invitations: true, feature_requests: true, billing: true, schedules: true }) }
        }
      },
      ModelCatalog: {
        service: catalog,
        methods: {
          requirements: { permission: "models.read", acting: (p) => catalog.requirements(p) },
          list: { internal: "the catalog for the task path and the feature catalog" },
          find: { internal: "the catalog for the task path" }
        }
      },
      Purchases: {
        service: purchases,
        methods: {
          availability: { permission: "purchases.read", acting: (p) => purchases.availability(p, "ios") },
          sync: { permission: "purchases.manage", acting: (p) => purchases.sync(p, { store: "app_store", signedTransaction: "walk" }) },
          list: { permission: "purchases.read", request: (p) => purchases.list(p, page) },
          get: { permission: "purchases.read", request: (p) => purchases.get(p, PurchaseId.make("pur_walk")) },
          syncStatus: { permission: "purchases.read", request: (p) => purchases.syncStatus(p, StoreNotificationId.make("sn_walk")) },
          replay: { permission: "purchases.manage", operator: (p) => purchases.replay(p, StoreNotificationId.make("sn_walk")) },
          receive: { internal: "a credential check: the store's signature admits the notification, processed as the system" },
          inboxQueue: worker,
          reconcileQueue: worker,
          processNotification: worker,
          reconcile: worker
        }
      }
    }
    return services
  })

/**
 * Domain services that are not caller-facing, and why: ports (stores, transports, primitives), workers' services, and
 * the credential flows in which the caller proves who they are rather than acting as a principal.
 */
const notCallerFacing: Record<string, string> = {
  Accounts: "credentials: sign-up, sign-in and sessions make principals",
  AccountTokens: "credentials: one-time tokens mailed to their owner",
  EmailVerification: "credentials: a mailed token proves the address",
  PasswordReset: "credentials: a mailed token proves the account",
  Organization: "a session's own memberships, before it acts in any workspace",
  CurrentPrincipal: "the principal itself",
  WebhookDeliveries: "worker",
  MailDelivery: "worker",
  MailOutbox: "mail queued inside other services' transactions",
  ScheduleReactions: "event subscriber",
  PushFanOut: "event subscriber",
  WebhookFanOut: "event subscriber",
  ChangeLog: "audit entries and events inside other services' transactions",
  EventSubscribers: "wiring",
  FeatureCatalog: "configuration",
  StoreProducts: "configuration",
  CurrentSchedulePolicy: "configuration",
  CurrentRequestId: "the request being served, for audit entries",
  WebhookSigner: "signing outgoing deliveries"
}

/** A port: a store, transport or primitive the services use, named `…Repository` or listed here. */
const ports = new Set([
  "Transactor", "IdGenerator", "SecretHasher", "SecretBox", "SecureRandom", "PasswordHasher", "AiProvider", "NotificationInbox",
  "Stores", "EventOutbox", "AuditLog", "Mailer", "DnsResolver", "PushSender", "PushService",
  "WebhookTransport", "MembershipCache", "SessionCache"
])

/** Every domain service the package exports, by name. */
const domainServices = Object.entries(Domain)
  .filter(([, value]) => Context.isKey(value) && value.key.startsWith("@atrium/domain/"))
  .map(([name]) => name)
  .filter((name) => !name.endsWith("Repository") && !ports.has(name))

const session = (workspaceId: WorkspaceId, role: Role) =>
  new SessionPrincipal({ sessionId: SessionId.make(`ses_${role}`), userId: UserId.make(`usr_walk${role}`), workspaceId, role })
const key = (workspaceId: WorkspaceId, scopes: ReadonlyArray<ApiKeyScope>) =>
  new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_walk"), workspaceId, scopes })
const scopes: ReadonlyArray<ReadonlyArray<ApiKeyScope>> = [[], ["read"], ["ai_tasks:write"], ["webhooks:write"], ["schedules:write"], ["write"]]

/** Every kind of principal: members of each role, keys of each scope, and the system and operator holding nothing. */
const everyone = (workspaceId: WorkspaceId) => {
  const members = (["member", "admin", "owner"] as const).map((role) => session(workspaceId, role))
  const keys = scopes.map((granted) => key(workspaceId, granted))
  const system = new SystemPrincipal({ name: "walk", workspaceId, permissions: [] })
  const operator = new OperatorPrincipal({ name: "walk", permissions: [] })
  return { members, keys, system, operator }
}

/** The calls of an entry, one per principal it accepts that lacks its permission. */
const lackingCalls = (entry: Walked, workspaceId: WorkspaceId): ReadonlyArray<{ readonly principal: Acting | OperatorPrincipal; readonly call: Refusal }> => {
  const { keys, members, operator, system } = everyone(workspaceId)
  const lacking = <P extends Acting | OperatorPrincipal>(candidates: ReadonlyArray<P>, call: (principal: P) => Refusal) =>
    candidates.filter((principal) => !isPermitted(principal, entry.permission)).map((principal) => ({ principal, call: call(principal) }))
  if ("acting" in entry) return lacking<Acting>([...members, ...keys, system], entry.acting)
  if ("request" in entry) return lacking<Principal>([...members, ...keys], entry.request)
  if ("system" in entry) return lacking([system], entry.system)
  if ("operator" in entry) return lacking([operator], entry.operator)
  return lacking<Acting | OperatorPrincipal>([...members, ...keys, system, operator], entry.anyone)
}

/** The refusal the domain's policy gives `principal` for `permission` (or, for a member-only method, its `memberOf`). */
const refusalsFor = (principal: Acting | OperatorPrincipal, permission: Permission) =>
  Effect.gen(function*() {
    const policy = yield* Effect.flip(permits(principal, permission))
    const memberOnly = principal._tag === "OperatorPrincipal" ? [] : [yield* Effect.flip(memberOf(principal)).pipe(Effect.option)]
    return [policy, ...memberOnly.flatMap((refusal) => Option.toArray(refusal))]
  })

const setup = Effect.gen(function*() {
  const { join, workspace } = yield* team
  yield* join("member@example.com", "member")
  const owner = (yield* (yield* Members).list(session(workspace.id, "owner"), page)).data.find((m) => m.membership.role === "owner")
  if (owner === undefined) return yield* Effect.die(new Error("the team has no owner"))
  return { workspaceId: workspace.id, ownerMembership: owner.membership.id }
})

describe("the domain enforces its policy itself", () => {
  it.effect("every domain service is walked or named as not caller-facing, and every method of a walked one is listed", () =>
    Effect.gen(function*() {
      const { ownerMembership } = yield* setup
      const services = yield* walk(ownerMembership)
      const unaccounted = domainServices.filter((name) => !(name in services) && !(name in notCallerFacing))
      assert.deepStrictEqual(unaccounted, [], "services neither walked nor named as not caller-facing")
      for (const [name, { methods, service }] of Object.entries(services)) {
        assert.deepStrictEqual(Object.keys(service).sort(), Object.keys(methods).sort(), `${name}: every method walked or named internal`)
      }
    }).pipe(Effect.provide(Testing.layerMemory)))

  it.effect("every caller-facing method refuses every principal lacking its permission, with the domain's own refusal", () =>
    Effect.gen(function*() {
      const { ownerMembership, workspaceId } = yield* setup
      const services = yield* walk(ownerMembership)
      let walked = 0
      for (const [name, { methods }] of Object.entries(services)) {
        for (const [method, entry] of Object.entries(methods)) {
          if ("internal" in entry) continue
          const calls = lackingCalls(entry, workspaceId)
          assert.isAbove(calls.length, 0, `${name}.${method}: some principal it accepts must lack ${entry.permission}`)
          for (const { call, principal } of calls) {
            const exit = yield* Effect.exit(call)
            const label = `${name}.${method} as ${principal._tag} ${JSON.stringify(principal)}`
            assert.isTrue(Exit.isFailure(exit), `${label}: must be refused`)
            const refusal = Exit.isFailure(exit) ? Exit.findErrorOption(exit) : Option.none()
            const expected = yield* refusalsFor(principal, entry.permission)
            assert.isTrue(
              Option.isSome(refusal) && expected.some((e) => JSON.stringify(e) === JSON.stringify(refusal.value)),
              `${label}: refused with ${JSON.stringify(refusal)}, not the domain's ${JSON.stringify(expected)}`
            )
            walked++
          }
        }
      }
      assert.isAbove(walked, 100)
    }).pipe(Effect.provide(Testing.layerMemory)))
})
