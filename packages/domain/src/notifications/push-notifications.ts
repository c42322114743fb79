import { Context, DateTime, Effect, Exit, Layer, Option } from "effect"
import { type Acting, type Forbidden, memberOf, permits } from "../access/index.ts"
import { IdGenerator, PushDeviceId, SecretBox, SecretHasher, type Unavailable } from "../shared/index.ts"
import { defaultNotificationPreferences, type NotificationPreferences } from "./notification-preferences.ts"
import { type OwnPushDevice, PushDevice, type PushDeviceRegistration, sealPushToken } from "./push-device.ts"
import { PushDeviceRepository } from "./push-device-repository.ts"
import { PushService } from "./push-service.ts"
import { logRemovedDevices } from "./removed-devices-log.ts"

/** A member's own push devices and notification preferences; nobody reaches another user's. */
export class PushNotifications extends Context.Service<PushNotifications, {
  /** Whether push is configured on this server (`features.push`). */
  readonly enabled: boolean
  /**
   * Registers (or updates) this installation for the session's user; a token another user held moves to this one. The
   * token is stored sealed, found by its digest.
   */
  readonly register: (principal: Acting, installationId: string, registration: PushDeviceRegistration) => Effect.Effect<OwnPushDevice, Forbidden | Unavailable>
  /** Removes one of the user's own devices; idempotent. */
  readonly unregister: (principal: Acting, installationId: string) => Effect.Effect<void, Forbidden | Unavailable>
  /** The user's own devices, their tokens opened (redacted) for the user alone. */
  readonly devices: (principal: Acting) => Effect.Effect<ReadonlyArray<OwnPushDevice>, Forbidden | Unavailable>
  readonly preferences: (principal: Acting) => Effect.Effect<NotificationPreferences, Forbidden | Unavailable>
  readonly setPreferences: (principal: Acting, preferences: NotificationPreferences) => Effect.Effect<NotificationPreferences, Forbidden | Unavailable>
}>()("@atrium/domain/PushNotifications") {
  static readonly layer = Layer.effect(
    PushNotifications,
    Effect.gen(function*() {
      const repo = yield* PushDeviceRepository
      const ids = yield* IdGenerator
      const service = yield* PushService
      const box = yield* SecretBox
      const sealing = yield* Effect.context<SecretBox | SecretHasher>()

      const register = Effect.fn("PushNotifications.register")(
        function*(acting: Acting, installationId: string, registration: PushDeviceRegistration) {
          const principal = yield* memberOf(acting)
          yield* permits(principal, "workspace.read")
          const now = yield* DateTime.now
          const existing = yield* repo.find(principal.userId, installationId)
          const id = Option.isSome(existing) ? existing.value.id : PushDeviceId.make(yield* ids.make("dev"))
          const device = new PushDevice({
            id,
            userId: principal.userId,
            sessionId: principal.sessionId,
            installationId,
            ...(yield* sealPushToken(registration.expoPushToken).pipe(Effect.provideContext(sealing))),
            platform: registration.platform,
            appVersion: registration.appVersion,
            locale: registration.locale,
            createdAt: Option.match(existing, { onNone: () => now, onSome: (found) => found.createdAt }),
            updatedAt: now
          })
          return { device: yield* repo.upsert(device), expoPushToken: registration.expoPushToken } satisfies OwnPushDevice
        }
      )

      const unregister = Effect.fn("PushNotifications.unregister")(function*(acting: Acting, installationId: string) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        const existing = yield* repo.find(principal.userId, installationId)
        const removed = yield* repo.delete(principal.userId, installationId)
        if (removed && Option.isSome(existing)) yield* logRemovedDevices([existing.value.id], "unregistered")
      })

      const devices = Effect.fn("PushNotifications.devices")(function*(acting: Acting) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        const found = yield* repo.listByUser(principal.userId)
        const opened = yield* Effect.forEach(found, (device) =>
          box.open(device.sealedToken).pipe(Effect.map((expoPushToken): OwnPushDevice => ({ device, expoPushToken })), Effect.exit))
        // A token sealed under another server key (it was replaced) cannot be opened: that device is left out of the
        // list, not the whole answer failed, until the app registers it again (which seals it anew).
        const readable = opened.flatMap((exit) => Exit.isSuccess(exit) ? [exit.value] : [])
        if (readable.length < opened.length) yield* Effect.logWarning(`${opened.length - readable.length} push token(s) cannot be opened with the server key`)
        return readable
      })

      const preferences = Effect.fn("PushNotifications.preferences")(function*(acting: Acting) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        const found = yield* repo.preferences([principal.userId])
        return found.get(principal.userId) ?? defaultNotificationPreferences
      })

      const setPreferences = Effect.fn("PushNotifications.setPreferences")(function*(acting: Acting, next: NotificationPreferences) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        yield* repo.savePreferences(principal.userId, next)
        return next
      })

      return PushNotifications.of({ enabled: service.enabled, register, unregister, devices, preferences, setPreferences })
    })
  )
}
