import {
  ApiKeyRepository,
  FeatureRequestRepository,
  FeatureRequestStatus,
  MailRepository,
  MembershipRepository,
  NotificationInbox,
  NotificationOutcome,
  type Page,
  type PageRequest,
  WorkspaceRepository
} from "@atrium/domain"
import { Console, DateTime, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { withDomain } from "./cli-support.ts"
import { resolveWorkspace, workspaceFlag } from "./cli-workspace.ts"

const limitFlag = Flag.Int("limit").pipe(Flag.withDescription("At most this many (1–100)"), Flag.withDefault(100))
const cursorFlag = Flag.String("cursor").pipe(Flag.withDescription("Continue after a previous list's nextCursor"), Flag.optional)

const pageRequest = (limit: number, cursor: Option.Option<string>): PageRequest => ({
  limit: Math.min(100, Math.max(1, limit)),
  cursor: Option.getOrUndefined(cursor)
})
const iso = (time: Option.Option<DateTime.Utc>) => Option.getOrNull(Option.map(time, DateTime.formatIso))

// One JSON object a line, then `{"nextCursor":…}` when there is more.
const printPage = <A>(page: Page<A>, view: (item: A) => Record<string, unknown>) =>
  Effect.gen(function*() {
    for (const item of page.data) yield* Console.log(JSON.stringify(view(item)))
    if (page.nextCursor !== null) yield* Console.log(JSON.stringify({ nextCursor: page.nextCursor }))
  })

/** Operator: every workspace, newest first. */
export const listWorkspaces = Command.make(
  "list-workspaces",
  { limit: limitFlag, cursor: cursorFlag },
  ({ cursor, limit }) =>
    withDomain(Effect.gen(function*() {
      const page = yield* (yield* WorkspaceRepository).list(pageRequest(limit, cursor))
      yield* printPage(page, (workspace) => ({
        id: workspace.id,
        slug: workspace.slug,
        name: workspace.name,
        personal: workspace.personal,
        createdAt: DateTime.formatIso(workspace.createdAt)
      }))
    }))
).pipe(Command.withDescription("List every workspace (id, slug, name), newest first"))

/** Operator: a workspace's API keys (never a key itself: only its display prefix). */
export const listKeys = Command.make(
  "list-keys",
  { workspace: workspaceFlag, limit: limitFlag, cursor: cursorFlag },
  ({ cursor, limit, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const page = yield* (yield* ApiKeyRepository).list(target.id, pageRequest(limit, cursor))
      yield* printPage(page, (key) => ({
        id: key.id,
        name: key.name,
        prefix: key.displayPrefix,
        scopes: key.scopes,
        createdAt: DateTime.formatIso(key.createdAt),
        expiresAt: iso(key.expiresAt),
        revokedAt: iso(key.revokedAt),
        replacedBy: Option.getOrNull(key.replacedBy)
      }))
    }))
).pipe(Command.withDescription("List a workspace's API keys (ids, prefixes, scopes; never the keys)"))

/** Operator: a workspace's members and their roles. */
export const listMembers = Command.make(
  "list-members",
  { workspace: workspaceFlag, limit: limitFlag, cursor: cursorFlag },
  ({ cursor, limit, workspace }) =>
    withDomain(Effect.gen(function*() {
      const target = yield* resolveWorkspace(workspace)
      const page = yield* (yield* MembershipRepository).listByWorkspace(target.id, pageRequest(limit, cursor))
      yield* printPage(page, (member) => ({
        id: member.membership.id,
        userId: member.user.id,
        email: member.user.email,
        name: member.user.name,
        role: member.membership.role,
        joinedAt: DateTime.formatIso(member.membership.createdAt)
      }))
    }))
).pipe(Command.withDescription("List a workspace's members and their roles"))

/** Operator: the feature-request board, to find the ids the status and merge commands take. */
export const listFeatureRequests = Command.make(
  "list-feature-requests",
  {
    status: Flag.Literals("status", FeatureRequestStatus.literals).pipe(Flag.withDescription("Only requests in this status"), Flag.optional),
    sort: Flag.Literals("sort", ["top", "new"]).pipe(Flag.withDescription("Most voted first, or newest first"), Flag.withDefault("top")),
    limit: limitFlag,
    cursor: cursorFlag
  },
  ({ cursor, limit, sort, status }) =>
    withDomain(Effect.gen(function*() {
      const page = yield* (yield* FeatureRequestRepository).list({ status: Option.getOrUndefined(status), sort }, pageRequest(limit, cursor))
      yield* printPage(page, (request) => ({
        id: request.id,
        title: request.title,
        status: request.status,
        voteCount: request.voteCount,
        createdAt: DateTime.formatIso(request.createdAt)
      }))
    }))
).pipe(Command.withDescription("List feature requests with their ids, status and votes"))

/** Operator: mail the server gave up on, to see why and whom it concerns (never a link or its token). */
export const listFailedMail = Command.make(
  "list-failed-mail",
  { limit: limitFlag },
  ({ limit }) =>
    withDomain(Effect.gen(function*() {
      const failed = yield* (yield* MailRepository).listFailed(Math.min(100, Math.max(1, limit)))
      for (const message of failed) {
        yield* Console.log(JSON.stringify({
          id: message.id,
          to: message.to,
          template: message.content.template,
          attempts: message.attempts,
          lastError: Option.getOrNull(message.lastError),
          createdAt: DateTime.formatIso(message.createdAt),
          failedAt: DateTime.formatIso(message.updatedAt)
        }))
      }
    }))
).pipe(Command.withDescription("List mail the server gave up on (permanent refusals, retries exhausted), newest first"))

/** Operator: the store notification inbox, to find the ids replay-store-notification takes (never a body). */
export const listStoreNotifications = Command.make(
  "list-store-notifications",
  {
    limit: limitFlag,
    only: Flag.Literals("only", ["pending", ...NotificationOutcome.literals]).pipe(
      Flag.withDescription("Only unprocessed items (pending) or items with this outcome"),
      Flag.optional
    )
  },
  ({ limit, only }) =>
    withDomain(Effect.gen(function*() {
      const items = yield* (yield* NotificationInbox).listRecent(Math.min(100, Math.max(1, limit)), Option.getOrUndefined(only))
      for (const item of items) {
        yield* Console.log(JSON.stringify({
          id: item.id,
          source: item.source,
          externalId: item.externalId,
          workspaceId: Option.getOrNull(item.workspaceId),
          receivedAt: DateTime.formatIso(item.receivedAt),
          attempts: item.attempts,
          processedAt: iso(item.processedAt),
          outcome: Option.getOrNull(item.outcome)
        }))
      }
    }))
).pipe(Command.withDescription("List store notifications (newest first) with their outcome"))
