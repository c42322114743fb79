import { Schema } from "effect"

/** The author submitted the most requests a day allows (10 in any 24 hours). */
export class FeatureRequestLimitReached extends Schema.TaggedError<FeatureRequestLimitReached>()("FeatureRequestLimitReached", {
  code: Schema.tag("rate_limited"),
  retryAfterSeconds: Schema.Int
}, { httpApiStatus: 429 }) {}
