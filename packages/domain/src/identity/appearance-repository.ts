import { Context, type Effect, type Option } from "effect"
import type { AppearanceSettings } from "./appearance.ts"
import type { Unavailable } from "../shared/index.ts"
import type { UserId, WorkspaceId } from "../shared/index.ts"

/** Port: appearance bundles, one per member per workspace, versioned. */
export class AppearanceRepository extends Context.Service<AppearanceRepository, {
  readonly get: (workspaceId: WorkspaceId, userId: UserId) => Effect.Effect<Option.Option<AppearanceSettings>, Unavailable>
  /**
   * Compare-and-set: stores `next` only while the stored version is `expectedVersion` (0: nothing stored yet);
   * `false` otherwise, changing nothing (Postgres: `INSERT … ON CONFLICT DO UPDATE … WHERE version = $expected`).
   */
  readonly put: (next: AppearanceSettings, expectedVersion: number) => Effect.Effect<boolean, Unavailable>
}>()("@atrium/domain/AppearanceRepository") {}
