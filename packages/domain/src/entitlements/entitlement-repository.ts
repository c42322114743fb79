import { Context, type Effect } from "effect"
import type { Entitlement } from "./entitlement.ts"
import type { Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"

/** Port: feature grants per workspace; one grant per feature, a new grant replaces the old. */
export class EntitlementRepository extends Context.Service<EntitlementRepository, {
  readonly upsert: (entitlement: Entitlement) => Effect.Effect<void, Unavailable>
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<Entitlement>, Unavailable>
}>()("@atrium/domain/EntitlementRepository") {}
