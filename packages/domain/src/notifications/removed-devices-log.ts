import { Effect } from "effect"
import type { PushDeviceId } from "../shared/index.ts"

/** Why a push device was removed. */
export type DeviceRemovalReason = "session_ended" | "token_dead" | "unregistered"

/** One log line per removed device: its id and why, never its token (an operator can tell where a phone went). */
export const logRemovedDevices = (deviceIds: ReadonlyArray<PushDeviceId>, reason: DeviceRemovalReason) =>
  Effect.forEach(deviceIds, (deviceId) => Effect.logInfo("push device removed").pipe(Effect.annotateLogs({ deviceId, reason })), { discard: true })
