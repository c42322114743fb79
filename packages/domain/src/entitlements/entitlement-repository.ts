import { Context, type Effect } from "effect"
import type { Entitlement } from "./entitlement.ts"
import type { Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"

/** Port: feature grants per workspace, one per (feature, source, sourceRef); a new grant with the same key replaces the old. */
export class EntitlementRepository extends Context.Service<EntitlementRepository, {
  readonly upsert: (entitlement: Entitlement) => Effect.Effect<void, Unavailable>
  /** Every grant of the workspace, expired ones included. */
  readonly listByWorkspace: (workspaceId: WorkspaceId) => Effect.Effect<ReadonlyArray<Entitlement>, Unavailable>
}>()("@atrium/domain/EntitlementRepository") {}
