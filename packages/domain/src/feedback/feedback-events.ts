import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { IsoTime } from "../shared/index.ts"
import { FeatureRequestStatus } from "./feature-request.ts"

const RequestSummary = Schema.Struct({
  id: Schema.String.annotate({ description: "Feature request id (fr_…)" }),
  title: Schema.String,
  status: FeatureRequestStatus
}).annotate({ identifier: "FeatureRequestSummary" })

/** Events of the feedback area, sent to the author's workspace. */
export const FeedbackEvents = {
  created: defineEvent("feature_request.created", "A member of the workspace submitted a feature request.", Schema.Struct({ featureRequest: RequestSummary })),
  statusChanged: defineEvent(
    "feature_request.status_changed",
    "A feature request submitted from the workspace changed status (or was merged into another).",
    Schema.Struct({
      featureRequest: RequestSummary,
      previousStatus: FeatureRequestStatus,
      note: Schema.NullOr(Schema.String),
      mergedInto: Schema.NullOr(Schema.String),
      changedAt: IsoTime
    })
  )
}
