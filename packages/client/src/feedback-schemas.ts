import { FeatureRequestDetails, FeatureRequestId, FeatureRequestStatus, FeatureRequestTitle } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

const isoTime = (description: string) => Schema.String.annotate({ format: "date-time", description: `${description}, ISO-8601 UTC` })

/** A request on the public board as one member sees it; its author is shown by name only. */
export const FeatureRequestView = Schema.Struct({
  id: FeatureRequestId,
  title: Schema.String,
  details: Schema.String,
  status: FeatureRequestStatus,
  statusNote: Schema.NullOr(Schema.String).annotate({ description: "Why the status changed, when the team said" }),
  mergedInto: Schema.NullOr(FeatureRequestId).annotate({ description: "The request this one was merged into (its votes moved there)" }),
  voteCount: Schema.Int.annotate({ description: "One vote per user" }),
  viewerHasVoted: Schema.Boolean,
  author: Schema.Struct({ name: Schema.String }),
  createdAt: isoTime("Creation time"),
  statusChangedAt: isoTime("Last status change")
}).annotate({ identifier: "FeatureRequest" })

/** A page of the board. */
export const FeatureRequestList = Schema.Struct({ data: Schema.Array(FeatureRequestView), nextCursor: NextCursor }).annotate({ identifier: "FeatureRequestList" })

/** `GET /feature-requests` filters: a status (default: every status but merged) and the order. */
export const FeatureRequestQuery = {
  status: Schema.optional(FeatureRequestStatus),
  sort: Schema.optional(Schema.Literals(["top", "new"])).annotateKey({ description: "`top` (most votes first, the default) or `new`" })
}

/** `POST /feature-requests`. */
export const CreateFeatureRequest = Schema.Struct({
  title: FeatureRequestTitle,
  details: Schema.optionalKey(FeatureRequestDetails)
}).annotate({ identifier: "CreateFeatureRequest" })

/** 201 of creating a request: it, and existing requests whose titles look alike (vote for one instead?). */
export const FeatureRequestCreated = Schema.Struct({
  featureRequest: FeatureRequestView,
  possibleDuplicates: Schema.Array(Schema.Struct({
    featureRequest: FeatureRequestView,
    similarity: Schema.Finite.annotate({ description: "Shared meaningful title words over all of them (0–1, two decimals); listed from 0.5" })
  }))
}).annotate({ identifier: "FeatureRequestCreated" })
