import { Context, type Effect, type Option } from "effect"
import type { Conflict, Unavailable } from "../shared/index.ts"
import type { Page, PageRequest, WorkspaceId } from "../shared/index.ts"
import type { Workspace, WorkspaceSlug } from "./workspace.ts"

/** Port: workspace storage. */
export class WorkspaceRepository extends Context.Service<WorkspaceRepository, {
  readonly insert: (workspace: Workspace) => Effect.Effect<void, Conflict | Unavailable>
  readonly findById: (id: WorkspaceId) => Effect.Effect<Option.Option<Workspace>, Unavailable>
  readonly findBySlug: (slug: WorkspaceSlug) => Effect.Effect<Option.Option<Workspace>, Unavailable>
  readonly count: Effect.Effect<number, Unavailable>
  /** Every workspace, newest first (the operator's view). */
  readonly list: (page: PageRequest) => Effect.Effect<Page<Workspace>, Unavailable>
}>()("@atrium/domain/WorkspaceRepository") {}
