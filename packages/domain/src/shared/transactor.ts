import { Context, type Effect } from "effect"
import type { Unavailable } from "./errors.ts"

/** Port: runs an effect atomically — the state change, its audit entry and its events commit together or not at all. */
export class Transactor extends Context.Service<Transactor, {
  readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Unavailable, R>
  /** Whether the calling fiber runs inside `withTransaction`, so that what it writes commits with that transaction. */
  readonly inTransaction: Effect.Effect<boolean>
}>()("@atrium/domain/Transactor") {}
