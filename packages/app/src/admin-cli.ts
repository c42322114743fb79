import {
  ApiKeyId,
  ApiKeys,
  Entitlements,
  EntitlementSource,
  Feature,
  FeatureCatalog,
  InvalidInput,
  Purchases,
  StoreNotificationId,
  Usage,
  WebhookEndpointId,
  WebhookEndpoints,
  Workspaces
} from "@atrium/domain"
import { Console, DateTime, Duration, Effect, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import { operator, operatorIn, withDomain } from "./cli-support.ts"
import { resolveWorkspace, workspaceFlag } from "./cli-workspace.ts"
import { mergeFeatureRequest, setFeatureRequestStatus } from "./feedback-cli.ts"
import { listFailedMail, listFeatureRequests, listKeys, listMembers, listStoreNotifications, listWorkspaces } from "./list-cli.ts"
import { addMember, invite } from "./members-cli.ts"



// Whole days from now, 1 to 3650: a negative, zero or absurd count is refused here, before any date is computed.
const expiryInDays = Effect.fn("expiryInDays")(function*(days: Option.Option<number>) {
  if (Option.isNone(days)) return undefined
  if (!Number.isInteger(days.value) || days.value < 1 || days.value > 3650) {
    return yield* new InvalidInput({ detail: "--expires-in-days must be a whole number of days from 1 to 3650" })
  }
  return DateTime.add(yield* DateTime.now, { days: days.value })
})


const migrate = Command.make("migrate", {}, () =>
  withDomain(Console.log("database migrated"))).pipe(Command.withDescription("Apply pending database migrations"))

const createWorkspace = Command.make(
  "create-workspace",
  {
    name: Flag.String("name").pipe(Flag.withDescription("Display name")),
    slug: Flag.String("slug").pipe(Flag.withDescription("URL-safe handle (derived from the name when absent)"), Flag.optional)
  },
  ({ name, slug }) =>
    withDomain(Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operator, { name, slug: Option.getOrUndefined(slug) })
      yield* Console.log(JSON.stringify({ id: workspace.id, slug: workspace.slug, name: workspace.name }))
    }))
).pipe(Command.withDescription("Create a workspace"))

const createKey = Command.make(
  "create-key",
  {
    workspace: workspaceFlag,
    name: Flag.String("name").pipe(Flag.withDescription("Label for the key"), Flag.withDefault("cli")),
    scope: Flag.Literals("scope", ["read", "ai_tasks:write", "webhooks:write", "schedules:write", "write"]).pipe(
      Flag.withDescription("Scope to grant (repeatable; default read)"),
      Flag.atLeast(0)
    ),
    environment: Flag.Literals("env", ["live", "test"]).pipe(Flag.withDefault("live")),
    expiresInDays: Flag.Int("expires-in-days").pipe(Flag.withDescription("Expire the key after this many days"), Flag.optional)
  },
  ({ environment, expiresInDays, name, scope, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const expiresAt = yield* expiryInDays(expiresInDays)
      const { apiKey, plaintext } = yield* (yield* ApiKeys).create(operatorIn(target.id), { name, scopes: scope, environment, expiresAt })
      // The key goes to stdout once and nowhere else; it cannot be shown again.
      yield* Console.log(JSON.stringify({ id: apiKey.id, workspaceId: target.id, scopes: apiKey.scopes, key: Redacted.value(plaintext) }))
    }))
).pipe(Command.withDescription("Create an API key and print it once"))

const revokeKey = Command.make(
  "revoke-key",
  { workspace: workspaceFlag, key: Flag.String("key").pipe(Flag.withSchema(ApiKeyId), Flag.withDescription("Key id (key_…)")) },
  ({ key, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const revoked = yield* (yield* ApiKeys).revoke(operatorIn(target.id), key)
      yield* Console.log(JSON.stringify({ id: revoked.id, revokedAt: Option.map(revoked.revokedAt, DateTime.formatIso).pipe(Option.getOrNull) }))
    }))
).pipe(Command.withDescription("Revoke an API key"))

const rollKey = Command.make(
  "roll-key",
  {
    workspace: workspaceFlag,
    key: Flag.String("key").pipe(Flag.withSchema(ApiKeyId), Flag.withDescription("Key id (key_…) to replace")),
    graceSeconds: Flag.Int("grace-seconds").pipe(
      Flag.withDescription("How long the old key keeps working (default 86400 = 24 h, at most 604800 = 7 days)"),
      Flag.optional
    )
  },
  ({ graceSeconds, key, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const rolled = yield* (yield* ApiKeys).roll(operatorIn(target.id), { id: key, graceSeconds: Option.getOrUndefined(graceSeconds) })
      // The new key goes to stdout once and nowhere else; it cannot be shown again.
      yield* Console.log(JSON.stringify({
        id: rolled.apiKey.id,
        replaces: rolled.previous.id,
        previousExpiresAt: Option.getOrNull(Option.map(rolled.previous.expiresAt, DateTime.formatIso)),
        scopes: rolled.apiKey.scopes,
        key: Redacted.value(rolled.plaintext)
      }))
    }))
).pipe(Command.withDescription("Replace an API key with a new one (same name and scopes); the old one works for the grace"))

const grantEntitlement = Command.make(
  "grant-entitlement",
  {
    workspace: workspaceFlag,
    feature: Flag.String("feature").pipe(
      Flag.withSchema(Feature),
      Flag.withDescription("Feature key from the feature catalog: a model's required feature (ai.basic, …) or domains.custom")
    ),
    source: Flag.Literals("source", EntitlementSource.literals).pipe(Flag.withDefault("manual")),
    expiresInDays: Flag.Int("expires-in-days").pipe(Flag.optional)
  },
  ({ expiresInDays, feature, source, workspace }) =>
    withDomain(Effect.gen(function*() {
      // Checked before the workspace, so a typo is named first; the grant itself checks the same catalog.
      yield* (yield* FeatureCatalog).known(feature)
      const target = yield* resolveWorkspace(workspace)
      const expiresAt = yield* expiryInDays(expiresInDays)
      const granted = yield* (yield* Entitlements).grant(operatorIn(target.id), { feature, source, expiresAt })
      yield* Console.log(JSON.stringify({ workspaceId: target.id, feature: granted.feature, source: granted.source }))
    }))
).pipe(Command.withDescription("Grant a feature to a workspace"))

const revokeEntitlement = Command.make(
  "revoke-entitlement",
  {
    workspace: workspaceFlag,
    feature: Flag.String("feature").pipe(Flag.withSchema(Feature), Flag.withDescription("Feature key to revoke")),
    source: Flag.Literals("source", EntitlementSource.literals).pipe(
      Flag.optional,
      Flag.withDescription("Only this source's grant (default: every grant of the feature)")
    )
  },
  ({ feature, source, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const revoked = yield* (yield* Entitlements).revoke(operatorIn(target.id), { feature, source: Option.getOrUndefined(source) })
      yield* Console.log(JSON.stringify({ workspaceId: target.id, feature, revoked: revoked.map((grant) => grant.source) }))
    }))
).pipe(Command.withDescription("Revoke a feature grant (emits entitlement.revoked)"))

const replayStoreNotification = Command.make(
  "replay-store-notification",
  {
    id: Flag.String("id").pipe(Flag.withSchema(StoreNotificationId), Flag.withDescription("Inbox item id (sn_…)"))
  },
  ({ id }) =>
    withDomain(Effect.gen(function*() {
      yield* (yield* Purchases).replay(operator, id)
      yield* Console.log(JSON.stringify({ id, queued: true }))
    }))
).pipe(Command.withDescription("Queue a stored store notification to be processed again (it is deduplicated and ordered by store time)"))

const addCredits = Command.make(
  "add-credits",
  {
    workspace: workspaceFlag,
    micros: Flag.Int("micros").pipe(Flag.withDescription("Credits to add, in micro-USD (1 USD = 1000000)"))
  },
  ({ micros, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const account = yield* (yield* Usage).addCredits(operatorIn(target.id), micros)
      yield* Console.log(JSON.stringify({ workspaceId: target.id, creditBalanceMicros: account.creditBalanceMicros }))
    }))
).pipe(Command.withDescription("Add AI credits to a workspace"))

const setCaps = Command.make(
  "set-caps",
  {
    workspace: workspaceFlag,
    spendCapMicros: Flag.Int("spend-cap-micros").pipe(Flag.withDescription("Monthly AI spend cap in micro-USD; -1 removes it"), Flag.optional),
    taskCap: Flag.Int("task-cap").pipe(Flag.withDescription("Monthly AI task cap; -1 removes it"), Flag.optional)
  },
  ({ spendCapMicros, taskCap, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      // Absent keeps the cap, -1 clears it, any other number sets it.
      const change = (flag: Option.Option<number>) =>
        Option.match(flag, { onNone: () => undefined, onSome: (value) => value < 0 ? null : value })
      const account = yield* (yield* Usage).setCaps(operatorIn(target.id), { spendCapMicros: change(spendCapMicros), taskCap: change(taskCap) })
      yield* Console.log(JSON.stringify({
        workspaceId: target.id,
        spendCapMicros: Option.getOrNull(account.spendCapMicros),
        taskCap: Option.getOrNull(account.taskCap)
      }))
    }))
).pipe(Command.withDescription("Set monthly usage caps"))

const rotateWebhookSecret = Command.make(
  "rotate-webhook-secret",
  {
    workspace: workspaceFlag,
    endpoint: Flag.String("endpoint").pipe(Flag.withSchema(WebhookEndpointId), Flag.withDescription("Endpoint id (whe_…)"))
  },
  ({ endpoint, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      // No grace period: this is for secrets that can no longer be opened (a lost or replaced server key).
      const rotated = yield* (yield* WebhookEndpoints).rotateSecret(operatorIn(target.id), endpoint, Duration.zero)
      // The new secret goes to stdout once, for the receiver; it cannot be shown again.
      yield* Console.log(JSON.stringify({ id: rotated.endpoint.id, workspaceId: target.id, secret: Redacted.value(rotated.secret) }))
    }))
).pipe(Command.withDescription("Give a webhook endpoint a new signing secret at once (e.g. after losing the secret key)"))

/** The admin CLI: `npm run atrium -- <command> …`. */
export const cli = Command.make("atrium").pipe(
  Command.withDescription("Atrium operator commands (beside a running server they act on its live database)"),
  Command.withSubcommands([
    migrate,
    createWorkspace,
    createKey,
    revokeKey,
    rollKey,
    grantEntitlement,
    revokeEntitlement,
    addCredits,
    setCaps,
    replayStoreNotification,
    rotateWebhookSecret,
    setFeatureRequestStatus,
    mergeFeatureRequest,
    addMember,
    invite,
    listWorkspaces,
    listKeys,
    listMembers,
    listFeatureRequests,
    listFailedMail,
    listStoreNotifications
  ])
)
