import { Context, DateTime, Effect, Layer, Option, Schema } from "effect"
import { AiTaskEvents } from "../ai/index.ts"
import type { DomainEvent, EventSubscriber, RecordedChange } from "../audit/index.ts"
import { FeatureRequestRepository, type FeatureRequestStatus, FeedbackEvents } from "../feedback/index.ts"
import { Email, IdentityEvents, type Member, MembershipRepository, sessionEndedActions, UserRepository } from "../identity/index.ts"
import { type Actor, FeatureRequestId, IdGenerator, type Page, PushMessageId, SessionId, TaskId, type Unavailable, UserId, type WorkspaceId } from "../shared/index.ts"
import { defaultNotificationPreferences, type NotificationCategory } from "./notification-preferences.ts"
import { PushDeviceRepository } from "./push-device-repository.ts"
import { PushMessage } from "./push-message.ts"
import { PushMessageRepository } from "./push-message-repository.ts"
import { logRemovedDevices } from "./removed-devices-log.ts"

// The submitters of a batch's finished tasks, by `<workspace>/<task>`.
type Submitters = ReadonlyMap<string, Actor>

// The task an `ai_task.succeeded` or `ai_task.failed` event is about.
const finishedTaskOf = (event: DomainEvent): TaskId | undefined => {
  const id: Option.Option<string> = event.type === AiTaskEvents.succeeded.type
    ? Option.map(decode(AiTaskEvents.succeeded.data, event.data), (data) => data.task.id)
    : event.type === AiTaskEvents.failed.type
    ? Option.map(decode(AiTaskEvents.failed.data, event.data), (data) => data.task.id)
    : Option.none()
  return Option.isSome(id) && isTaskId(id.value) ? id.value : undefined
}

/** Who a change notifies and what they read: short texts and ids, never secrets or another workspace's content. */
interface Notice {
  readonly category: NotificationCategory
  readonly userIds: ReadonlyArray<UserId>
  readonly title: string
  readonly body: string
  readonly data: Readonly<Record<string, string>>
}

const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, data: unknown) => Schema.decodeUnknownOption(schema)(data)
const isSessionId = Schema.is(SessionId)
const isUserId = Schema.is(UserId)
const isTaskId = Schema.is(TaskId)
const isEmail = Schema.is(Email)
const isFeatureRequestId = Schema.is(FeatureRequestId)
// Events from areas that tell the workspace's admins and owners, by category.
const adminNotices: ReadonlyMap<string, { readonly category: NotificationCategory; readonly title: string; readonly body: string }> = new Map([
  ["usage.cap_reached", { category: "billing", title: "Usage cap reached", body: "A monthly usage cap of your workspace was reached." }],
  ["purchase.status_changed", { category: "billing", title: "Subscription updated", body: "A purchase of your workspace changed status." }],
  ["schedule.paused", { category: "schedules", title: "Schedule paused", body: "A schedule of your workspace was paused." }]
])
// Every event type `noticeOf` reads: the change log hands the fan-out no other event.
const noticeTypes: ReadonlySet<string> = new Set([
  AiTaskEvents.succeeded.type,
  AiTaskEvents.failed.type,
  IdentityEvents.invitationCreated.type,
  FeedbackEvents.statusChanged.type,
  ...adminNotices.keys()
])

// Push texts stay short: a phone shows about two lines, and the push service caps a message at 4 KiB.
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`)
const statusWords: Readonly<Record<FeatureRequestStatus, string>> = {
  open: "open again",
  under_review: "under review",
  planned: "planned",
  in_progress: "in progress",
  shipped: "shipped",
  declined: "declined",
  merged: "merged into another request"
}

/** What a follower of a feature request reads: its title, its new status and the operator's note. */
const featureRequestNotice = (changed: {
  readonly featureRequest: { readonly title: string; readonly status: FeatureRequestStatus }
  readonly note: string | null
}): { readonly title: string; readonly body: string } => {
  const status = statusWords[changed.featureRequest.status]
  const note = changed.note === null || changed.note.trim().length === 0 ? "" : ` — “${clip(changed.note.trim(), 160)}”`
  return {
    title: clip(`“${changed.featureRequest.title}” is ${status}`, 90),
    body: `A feature request you follow is now ${status}${note}`
  }
}

/**
 * Turns changes into push messages in the change's own transaction (one per device of each recipient who allows the
 * category), whether or not this process can send them, and drops the devices of a session that ends.
 */
export class PushFanOut extends Context.Service<PushFanOut, { readonly subscriber: EventSubscriber }>()("@atrium/domain/PushFanOut") {
  static readonly layer = Layer.effect(
    PushFanOut,
    Effect.gen(function*() {
      const devices = yield* PushDeviceRepository
      const messages = yield* PushMessageRepository
      const users = yield* UserRepository
      const memberships = yield* MembershipRepository
      const requests = yield* FeatureRequestRepository
      const ids = yield* IdGenerator

      const admins = Effect.fnUntraced(function*(workspaceId: WorkspaceId) {
        const found: Array<UserId> = []
        let cursor: string | undefined = undefined
        // Bounded: a workspace's admins are found in its first thousand members.
        for (let page = 0; page < 10; page++) {
          const members: Page<Member> = yield* memberships.listByWorkspace(workspaceId, { limit: 100, cursor })
          for (const member of members.data) if (member.membership.role !== "member") found.push(member.membership.userId)
          if (members.nextCursor === null) break
          cursor = members.nextCursor
        }
        return found
      })

      // The user who submitted a finished task, from the submitters read for the whole batch of changes.
      const taskSubmitter = (submitters: Submitters, workspaceId: WorkspaceId, taskId: string): ReadonlyArray<UserId> => {
        const actor: Actor | undefined = submitters.get(`${workspaceId}/${taskId}`)
        return actor !== undefined && actor.type === "user" && isUserId(actor.id) ? [actor.id] : []
      }

      const noticeOf = Effect.fnUntraced(function*(event: DomainEvent, submitters: Submitters) {
        const none = Option.none<Notice>()
        switch (event.type) {
          case AiTaskEvents.succeeded.type:
          case AiTaskEvents.failed.type: {
            const taskId = finishedTaskOf(event)
            if (taskId === undefined) return none
            const succeeded = event.type === AiTaskEvents.succeeded.type
            return Option.some<Notice>({
              category: "ai_tasks",
              userIds: taskSubmitter(submitters, event.workspaceId, taskId),
              title: succeeded ? "AI task finished" : "AI task failed",
              body: succeeded ? "Your AI task has finished." : "Your AI task could not be completed.",
              data: { type: event.type, taskId, workspaceId: event.workspaceId }
            })
          }
          case IdentityEvents.invitationCreated.type: {
            const created = decode(IdentityEvents.invitationCreated.data, event.data)
            if (Option.isNone(created) || !isEmail(created.value.invitation.email)) return none
            const invitee = yield* users.findByEmail(created.value.invitation.email)
            return Option.some<Notice>({
              category: "invitations",
              userIds: Option.match(invitee, { onNone: () => [], onSome: (found) => [found.user.id] }),
              title: "You're invited",
              body: "You were invited to join a workspace.",
              data: { type: event.type, invitationId: created.value.invitation.id }
            })
          }
          case FeedbackEvents.statusChanged.type: {
            const changed = decode(FeedbackEvents.statusChanged.data, event.data)
            if (Option.isNone(changed) || !isFeatureRequestId(changed.value.featureRequest.id)) return none
            const request = yield* requests.findById(changed.value.featureRequest.id)
            if (Option.isNone(request)) return none
            const voters = yield* requests.voters(request.value.id)
            return Option.some<Notice>({
              category: "feature_requests",
              userIds: [...new Set([request.value.authorId, ...voters])],
              ...featureRequestNotice(changed.value),
              data: { type: event.type, featureRequestId: request.value.id, status: changed.value.featureRequest.status }
            })
          }
          default: {
            const notice = adminNotices.get(event.type)
            if (notice === undefined) return none
            return Option.some<Notice>({ ...notice, userIds: yield* admins(event.workspaceId), data: { type: event.type, workspaceId: event.workspaceId } })
          }
        }
      })

      const enqueue = Effect.fnUntraced(function*(event: DomainEvent, notice: Notice) {
        if (notice.userIds.length === 0) return
        const preferences = yield* devices.preferences(notice.userIds)
        const allowed = notice.userIds.filter((userId) => (preferences.get(userId) ?? defaultNotificationPreferences)[notice.category])
        if (allowed.length === 0) return
        const targets = yield* devices.listByUsers(allowed)
        const now = yield* DateTime.now
        const pending = yield* Effect.forEach(targets, (device) =>
          ids.make("push").pipe(Effect.map((id) =>
            new PushMessage({
              id: PushMessageId.make(id),
              userId: device.userId,
              deviceId: device.id,
              sealedToken: device.sealedToken,
              tokenDigest: device.tokenDigest,
              category: notice.category,
              eventId: Option.some(event.id),
              title: notice.title,
              body: notice.body,
              data: notice.data,
              status: "pending",
              attempts: 0,
              nextAttemptAt: Option.some(now),
              ticketId: Option.none(),
              receiptCheckAt: Option.none(),
              lastError: Option.none(),
              createdAt: now,
              updatedAt: now
            })
          )))
        if (pending.length > 0) yield* messages.insertMany(pending)
      })

      // Whether this process could send is beside the point: the messages commit with the change, and whichever process
      // has push configured sends them (an operator's CLI has no push token, the server does). A session that ends, for
      // any reason there is or will be, takes its devices with it.
      const onChangeWith = (change: RecordedChange, submitters: Submitters): Effect.Effect<void, Unavailable> => {
        const sessionEnded = sessionEndedActions.has(change.action)
        return !sessionEnded && Option.isNone(change.event) ? Effect.void : Effect.gen(function*() {
          if (sessionEnded && isSessionId(change.target)) yield* logRemovedDevices(yield* devices.deleteBySession(change.target), "session_ended")
          if (Option.isNone(change.event)) return
          const notice = yield* noticeOf(change.event.value, submitters)
          if (Option.isSome(notice)) yield* enqueue(change.event.value, notice.value)
        })
      }

      // A settlement finishes many tasks in one transaction and names their submitters; any it does not name are read in
      // one statement, not one per task.
      const onChanges = (changes: ReadonlyArray<RecordedChange>): Effect.Effect<void, Unavailable> =>
        Effect.gen(function*() {
          const submitters: Submitters = new Map(changes.flatMap(({ event, onBehalfOf }) => {
            const taskId = Option.isSome(event) ? finishedTaskOf(event.value) : undefined
            return Option.isSome(event) && taskId !== undefined && onBehalfOf !== undefined ? [[`${event.value.workspaceId}/${taskId}`, onBehalfOf]] : []
          }))
          yield* Effect.forEach(changes, (change) => onChangeWith(change, submitters), { discard: true })
        })

      return PushFanOut.of({
        subscriber: { name: "push", eventTypes: noticeTypes, actions: sessionEndedActions, onChange: (change) => onChanges([change]), onChanges }
      })
    })
  )

}
