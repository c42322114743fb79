import { type Array as Arr, Context, type Effect, type Option } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { EventId, WorkspaceId } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import type { DomainEvent } from "./domain-event.ts"

/** Port: the transactional outbox; events appended inside a transaction exist only if it commits. */
export class EventOutbox extends Context.Service<EventOutbox, {
  readonly append: (event: DomainEvent) => Effect.Effect<void, Unavailable>
  /** Appends many events in one write. */
  readonly appendAll: (events: Arr.NonEmptyReadonlyArray<DomainEvent>) => Effect.Effect<void, Unavailable>
  readonly list: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<DomainEvent>, Unavailable>
  /** One event of the workspace; another workspace's is not found. */
  readonly findById: (workspaceId: WorkspaceId, id: EventId) => Effect.Effect<Option.Option<DomainEvent>, Unavailable>
}>()("@atrium/domain/EventOutbox") {}
