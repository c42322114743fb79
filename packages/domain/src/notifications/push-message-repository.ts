import { Context, type DateTime, type Duration, type Effect } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { PushMessage } from "./push-message.ts"

/** Port: the push outbox; claims are leases any process may take, so a crashed sender's batch is sent again. */
export class PushMessageRepository extends Context.Service<PushMessageRepository, {
  readonly insertMany: (messages: ReadonlyArray<PushMessage>) => Effect.Effect<void, Unavailable>
  /** Leases up to `limit` pending messages due at `now` for `lease`. */
  readonly claimDue: (limit: number, now: DateTime.Utc, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<PushMessage>, Unavailable>
  /** Leases up to `limit` sent messages whose receipt is due at `now`. */
  readonly claimReceiptsDue: (limit: number, now: DateTime.Utc, lease: Duration.Duration) => Effect.Effect<ReadonlyArray<PushMessage>, Unavailable>
  /** Saves the outcome of a step (and ends its lease). */
  readonly updateMany: (messages: ReadonlyArray<PushMessage>) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/PushMessageRepository") {}
