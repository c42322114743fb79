import { type Array as Arr, Context, type Effect } from "effect"
import type { AuditEntry } from "./audit-entry.ts"
import type { Unavailable } from "../shared/index.ts"
import type { WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"

/** Port: the append-only audit log of each workspace. */
export class AuditLog extends Context.Service<AuditLog, {
  readonly append: (entry: AuditEntry) => Effect.Effect<void, Unavailable>
  /** Appends many entries in one write. */
  readonly appendAll: (entries: Arr.NonEmptyReadonlyArray<AuditEntry>) => Effect.Effect<void, Unavailable>
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<AuditEntry>, Unavailable>
}>()("@atrium/domain/AuditLog") {}
