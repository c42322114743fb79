import { Schema } from "effect"
import { WorkspaceId } from "../shared/index.ts"

/**
 * A submission batch the store refused to write, with what it could not do; nothing of the batch was written. Budgets
 * and keys read under the batch's billing locks rule both out, so it is a broken invariant, never a caller's answer.
 */
export class ReservationsNotWritten extends Schema.TaggedError<ReservationsNotWritten>()("ReservationsNotWritten", {
  /** Workspaces the batch reserved for that have no billing account. */
  withoutAccount: Schema.Array(WorkspaceId),
  /** Keys of the batch that another submission holds. */
  keysInUse: Schema.Array(Schema.Struct({ workspaceId: WorkspaceId, key: Schema.String }))
}) {}
