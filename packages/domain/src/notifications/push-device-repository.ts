import { Context, type Effect, type Option } from "effect"
import type { PushDeviceId, SessionId, Unavailable, UserId } from "../shared/index.ts"
import type { NotificationPreferences } from "./notification-preferences.ts"
import type { PushDevice } from "./push-device.ts"

/** Port: registered devices and notification preferences, per user. */
export class PushDeviceRepository extends Context.Service<PushDeviceRepository, {
  /**
   * Saves the user's device for this installation (replacing its token and session); any other row holding the same
   * token (the same digest) — another user's, or a stale installation — is removed, so a token belongs to one user at a time.
   */
  readonly upsert: (device: PushDevice) => Effect.Effect<PushDevice, Unavailable>
  readonly find: (userId: UserId, installationId: string) => Effect.Effect<Option.Option<PushDevice>, Unavailable>
  readonly listByUser: (userId: UserId) => Effect.Effect<ReadonlyArray<PushDevice>, Unavailable>
  readonly listByUsers: (userIds: ReadonlyArray<UserId>) => Effect.Effect<ReadonlyArray<PushDevice>, Unavailable>
  /** Removes one of the user's devices; false when the user has none for that installation. */
  readonly delete: (userId: UserId, installationId: string) => Effect.Effect<boolean, Unavailable>
  /** Removes the devices registered by a session; answers the ids removed. */
  readonly deleteBySession: (sessionId: SessionId) => Effect.Effect<ReadonlyArray<PushDeviceId>, Unavailable>
  /** The push service said the token is dead: removes the device holding it, found by the token's digest; answers the ids removed. */
  readonly deleteByTokenDigest: (tokenDigest: string) => Effect.Effect<ReadonlyArray<PushDeviceId>, Unavailable>
  readonly preferences: (userIds: ReadonlyArray<UserId>) => Effect.Effect<ReadonlyMap<UserId, NotificationPreferences>, Unavailable>
  readonly savePreferences: (userId: UserId, preferences: NotificationPreferences) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/PushDeviceRepository") {}
