import { DateTime, Option, Result, Schema } from "effect"
import { FeatureRequestId, InvalidInput, isSafeText, SafeMultilineText, UserId, WorkspaceId } from "../shared/index.ts"

/** Where a request stands on the public board; `merged` is reached only by merging into another request. */
export const FeatureRequestStatus = Schema.Literals(["open", "under_review", "planned", "in_progress", "shipped", "declined", "merged"]).annotate({
  identifier: "FeatureRequestStatus"
})
export type FeatureRequestStatus = typeof FeatureRequestStatus.Type

/** A request's title: one line of 3–120 characters once trimmed. */
export const FeatureRequestTitle = Schema.Trim.check(isSafeText(), Schema.isBetweenLength(3, 120)).annotate({ description: "3–120 characters" })

/** A request's details: at most 5,000 characters. */
export const FeatureRequestDetails = SafeMultilineText.check(Schema.isMaxLength(5000)).annotate({ description: "At most 5,000 characters" })

/** A feature request on the one public board every member of the service sees; authors are shown by name only. */
export class FeatureRequest extends Schema.Class<FeatureRequest>("@atrium/domain/FeatureRequest")({
  id: FeatureRequestId,
  workspaceId: WorkspaceId,
  authorId: UserId,
  authorName: Schema.String,
  title: Schema.String,
  details: Schema.String,
  status: FeatureRequestStatus,
  statusNote: Schema.OptionFromNullOr(Schema.String),
  mergedInto: Schema.OptionFromNullOr(FeatureRequestId),
  voteCount: Schema.Int,
  createdAt: Schema.DateTimeUtc,
  statusChangedAt: Schema.DateTimeUtc
}) {
  /** An operator's status change; a merged request is final, and `merged` is reached only through `mergeInto`. */
  changeStatus(status: Exclude<FeatureRequestStatus, "merged">, note: Option.Option<string>, now: DateTime.Utc): Result.Result<FeatureRequest, InvalidInput> {
    if (this.status === "merged") return Result.fail(new InvalidInput({ detail: "a merged request keeps its status" }))
    return Result.succeed(new FeatureRequest({ ...this, status, statusNote: note, statusChangedAt: now }))
  }

  /** Folds this request into `target`: its votes move there (the repository moves them). */
  mergeInto(target: FeatureRequest, now: DateTime.Utc): Result.Result<FeatureRequest, InvalidInput> {
    if (target.id === this.id) return Result.fail(new InvalidInput({ detail: "a request cannot be merged into itself" }))
    if (this.status === "merged") return Result.fail(new InvalidInput({ detail: "the request is already merged" }))
    if (target.status === "merged") return Result.fail(new InvalidInput({ detail: "the target is merged; merge into the request it was merged into" }))
    return Result.succeed(
      new FeatureRequest({ ...this, status: "merged", mergedInto: Option.some(target.id), statusNote: Option.some(`Merged into ${target.id}`), statusChangedAt: now })
    )
  }
}
