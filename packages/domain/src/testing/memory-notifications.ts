import { Context, DateTime, Duration, Effect, Layer, Option, Ref } from "effect"
import {
  type NotificationPreferences,
  type PushDevice,
  type OutgoingPush,
  type PushMessage,
  PushDeviceRepository,
  PushMessageRepository,
  type PushReceipt,
  PushService,
  PushServiceError,
  type PushTicket
} from "../notifications/index.ts"
import type { UserId } from "../shared/index.ts"
import { type MemoryState, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const without = <V>(map: ReadonlyMap<string, V>, keep: (value: V) => boolean): ReadonlyMap<string, V> =>
  new Map(Array.from(map).filter(([, value]) => keep(value)))

// A device that goes takes its unsent messages with it, as in Postgres.
const withDevices = (s: MemoryState, pushDevices: MemoryState["pushDevices"]): MemoryState => {
  const kept = new Set(Array.from(pushDevices.values()).map((d) => d.id))
  return { ...s, pushDevices, pushMessages: without(s.pushMessages, (m) => m.status !== "pending" || kept.has(m.deviceId)) }
}

// Removes the devices `gone` picks and answers their ids.
const removeDevices = (s: MemoryState, gone: (device: PushDevice) => boolean) =>
  [Array.from(s.pushDevices.values()).filter(gone).map((d) => d.id), withDevices(s, without(s.pushDevices, (d) => !gone(d)))] as const

/** In-memory push devices and notification preferences. */
export const PushDeviceRepositoryMemory = Layer.effect(
  PushDeviceRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    const find = (s: MemoryState, userId: string, installationId: string) =>
      Array.from(s.pushDevices.values()).find((d) => d.userId === userId && d.installationId === installationId)
    return PushDeviceRepository.of({
      upsert: (device) =>
        modify((s) => {
          // One token, one user: any other row holding the token goes.
          const others = without(s.pushDevices, (d) => d.id === device.id || d.tokenDigest !== device.tokenDigest)
          return [device, withDevices(s, withEntry(others, device.id, device))] as const
        }),
      find: (userId, installationId) => read.pipe(Effect.map((s) => Option.fromNullishOr(find(s, userId, installationId)))),
      listByUser: (userId) => read.pipe(Effect.map((s) => Array.from(s.pushDevices.values()).filter((d) => d.userId === userId))),
      listByUsers: (userIds) => read.pipe(Effect.map((s) => Array.from(s.pushDevices.values()).filter((d) => userIds.includes(d.userId)))),
      delete: (userId, installationId) =>
        modify((s) => {
          const found = find(s, userId, installationId)
          if (found === undefined) return [false, s] as const
          return [true, withDevices(s, without(s.pushDevices, (d) => d.id !== found.id))] as const
        }),
      deleteBySession: (sessionId) => modify((s) => removeDevices(s, (d) => d.sessionId === sessionId)),
      deleteByTokenDigest: (digest) => modify((s) => removeDevices(s, (d) => d.tokenDigest === digest)),
      preferences: (userIds) =>
        read.pipe(Effect.map((s) => {
          const found = new Map<UserId, NotificationPreferences>()
          for (const userId of userIds) {
            const preferences = s.notificationPreferences.get(userId)
            if (preferences !== undefined) found.set(userId, preferences)
          }
          return found
        })),
      savePreferences: (userId, preferences) => write((s) => ({ ...s, notificationPreferences: withEntry(s.notificationPreferences, userId, preferences) }))
    })
  })
)

/** In-memory push outbox with the same lease semantics as the Postgres one. */
export const PushMessageRepositoryMemory = Layer.effect(
  PushMessageRepository,
  Effect.gen(function*() {
    const { write, modify } = yield* useStore
    const claim = (due: (message: PushMessage, now: DateTime.Utc) => boolean) => (limit: number, now: DateTime.Utc, lease: Duration.Duration) =>
      modify((s) => {
        const free = (m: PushMessage) => (s.pushLeases.get(m.id) ?? 0) <= millis(now)
        const claimed = Array.from(s.pushMessages.values())
          .filter((m) => due(m, now) && free(m))
          .sort((a, b) => millis(a.createdAt) - millis(b.createdAt))
          .slice(0, limit)
        const pushLeases = new Map(s.pushLeases)
        for (const m of claimed) pushLeases.set(m.id, millis(now) + Duration.toMillis(lease))
        return [claimed, { ...s, pushLeases }] as const
      })
    return PushMessageRepository.of({
      insertMany: (messages) =>
        write((s) => {
          const pushMessages = new Map(s.pushMessages)
          // Like the Postgres unique key: one event reaches one device once.
          const sent = new Set(Array.from(s.pushMessages.values()).flatMap((m) => Option.toArray(Option.map(m.eventId, (id) => `${id}/${m.deviceId}`))))
          for (const m of messages) {
            const key = Option.map(m.eventId, (id) => `${id}/${m.deviceId}`)
            if (Option.isSome(key) && sent.has(key.value)) continue
            pushMessages.set(m.id, m)
          }
          return { ...s, pushMessages }
        }),
      claimDue: claim((m, now) => m.status === "pending" && Option.exists(m.nextAttemptAt, (at) => DateTime.isLessThanOrEqualTo(at, now))),
      claimReceiptsDue: claim((m, now) => m.status === "sent" && Option.exists(m.receiptCheckAt, (at) => DateTime.isLessThanOrEqualTo(at, now))),
      updateMany: (messages) =>
        write((s) => {
          const pushMessages = new Map(s.pushMessages)
          const pushLeases = new Map(s.pushLeases)
          for (const m of messages) {
            pushMessages.set(m.id, m)
            pushLeases.delete(m.id)
          }
          return { ...s, pushMessages, pushLeases }
        }),
    })
  })
)

/** What the scripted push service saw and will answer; tests script failures and read what was sent. */
export class PushServiceScript extends Context.Service<PushServiceScript, {
  readonly sent: Ref.Ref<ReadonlyArray<ReadonlyArray<OutgoingPush>>>
  /** Answers for the next `send` calls, in order; when empty every message gets an `ok` ticket. */
  readonly sendAnswers: Ref.Ref<ReadonlyArray<PushServiceError | ((pushes: ReadonlyArray<OutgoingPush>) => ReadonlyArray<PushTicket>)>>
  /** Receipts by ticket id. */
  readonly receipts: Ref.Ref<ReadonlyMap<string, PushReceipt>>
}>()("@atrium/domain/testing/PushServiceScript") {}

/** An enabled push service in memory, answering as scripted; tickets are `ticket-<message id>`. */
export const PushServiceMemory = Layer.effect(
  PushService,
  Effect.gen(function*() {
    const script = yield* PushServiceScript
    return {
      enabled: true,
      send: (pushes: ReadonlyArray<OutgoingPush>) =>
        Effect.gen(function*() {
          yield* Ref.update(script.sent, (all) => [...all, pushes])
          const answers = yield* Ref.get(script.sendAnswers)
          const [next, ...rest] = answers
          yield* Ref.set(script.sendAnswers, rest)
          if (next === undefined) return pushes.map(({ message }): PushTicket => ({ status: "ok", id: `ticket-${message.id}` }))
          if (next instanceof PushServiceError) return yield* Effect.fail(next)
          return next(pushes)
        }),
      receipts: (ids: ReadonlyArray<string>) =>
        Ref.get(script.receipts).pipe(Effect.map((all) => new Map(ids.flatMap((id) => {
          const receipt = all.get(id)
          return receipt === undefined ? [] : [[id, receipt] as const]
        }))))
    }
  })
).pipe(
  Layer.provideMerge(Layer.effect(PushServiceScript, Effect.all({ sent: Ref.make<ReadonlyArray<ReadonlyArray<OutgoingPush>>>([]), sendAnswers: Ref.make<ReadonlyArray<PushServiceError | ((pushes: ReadonlyArray<OutgoingPush>) => ReadonlyArray<PushTicket>)>>([]), receipts: Ref.make<ReadonlyMap<string, PushReceipt>>(new Map()) }).pipe(Effect.map(PushServiceScript.of))))
)
