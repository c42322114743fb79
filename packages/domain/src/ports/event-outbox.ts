import { Context, type Effect } from "effect"
import type { Unavailable } from "../errors.ts"
import type { WorkspaceId } from "../ids.ts"
import type { Page, PageRequest } from "../page.ts"
import type { DomainEvent } from "../webhook-events.ts"

/** Port: the transactional outbox; events appended inside a transaction exist only if it commits. */
export class EventOutbox extends Context.Service<EventOutbox, {
  readonly append: (event: DomainEvent) => Effect.Effect<void, Unavailable>
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<DomainEvent>, Unavailable>
}>()("@atrium/domain/EventOutbox") {}
