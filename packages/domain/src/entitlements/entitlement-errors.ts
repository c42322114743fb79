import { Schema } from "effect"

/** The workspace lacks the feature the operation (or the chosen model) requires. */
export class NotEntitled extends Schema.TaggedError<NotEntitled>()("NotEntitled", {
  code: Schema.tag("not_entitled"),
  feature: Schema.String
}, { httpApiStatus: 403 }) {}
