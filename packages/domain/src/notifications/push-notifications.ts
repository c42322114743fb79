import { Context, DateTime, Effect, Exit, Layer, Option } from "effect"
import type { SessionPrincipal } from "../access/index.ts"
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
  readonly register: (principal: SessionPrincipal, installationId: string, registration: PushDeviceRegistration) => Effect.Effect<OwnPushDevice, Unavailable>
  /** Removes one of the user's own devices; idempotent. */
  readonly unregister: (principal: SessionPrincipal, installationId: string) => Effect.Effect<void, Unavailable>
  /** The user's own devices, their tokens opened (redacted) for the user alone. */
  readonly devices: (principal: SessionPrincipal) => Effect.Effect<ReadonlyArray<OwnPushDevice>, Unavailable>
  readonly preferences: (principal: SessionPrincipal) => Effect.Effect<NotificationPreferences, Unavailable>
  readonly setPreferences: (principal: SessionPrincipal, preferences: NotificationPreferences) => Effect.Effect<NotificationPreferences, Unavailable>
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
        function*(principal: SessionPrincipal, installationId: string, registration: PushDeviceRegistration) {
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

      const unregister = Effect.fn("PushNotifications.unregister")(function*(principal: SessionPrincipal, installationId: string) {
        const existing = yield* repo.find(principal.userId, installationId)
        const removed = yield* repo.delete(principal.userId, installationId)
        if (removed && Option.isSome(existing)) yield* logRemovedDevices([existing.value.id], "unregistered")
      })

      const devices = Effect.fn("PushNotifications.devices")(function*(principal: SessionPrincipal) {
        const found = yield* repo.listByUser(principal.userId)
        const opened = yield* Effect.forEach(found, (device) =>
          box.open(device.sealedToken).pipe(Effect.map((expoPushToken): OwnPushDevice => ({ device, expoPushToken })), Effect.exit))
        // A token sealed under another server key (it was replaced) cannot be opened: that device is left out of the
        // list, not the whole answer failed, until the app registers it again (which seals it anew).
        const readable = opened.flatMap((exit) => Exit.isSuccess(exit) ? [exit.value] : [])
        if (readable.length < opened.length) yield* Effect.logWarning(`${opened.length - readable.length} push token(s) cannot be opened with the server key`)
        return readable
      })

      const preferences = Effect.fn("PushNotifications.preferences")(function*(principal: SessionPrincipal) {
        const found = yield* repo.preferences([principal.userId])
        return found.get(principal.userId) ?? defaultNotificationPreferences
      })

      const setPreferences = Effect.fn("PushNotifications.setPreferences")(function*(principal: SessionPrincipal, next: NotificationPreferences) {
        yield* repo.savePreferences(principal.userId, next)
        return next
      })

      return PushNotifications.of({ enabled: service.enabled, register, unregister, devices, preferences, setPreferences })
    })
  )
}
