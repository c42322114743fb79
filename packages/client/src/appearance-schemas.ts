import { AppearanceBundle, SafeText } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** The member's appearance bundle with its version as a strong `ETag` (`"v3"`); send it back as `If-Match`. */
export const AppearanceWithEtag = HttpApiSchema.WithHeaders(AppearanceBundle, {
  etag: Schema.String.annotate({ description: "The bundle's version, for `If-Match`", examples: ['"v3"'] })
})

/** Headers of `PUT /api/mobile/appearance`. */
export const AppearanceWriteHeaders = {
  "if-match": Schema.optional(SafeText.check(Schema.isMaxLength(200)).annotate({
    description: "The `ETag` the change is based on. Required (428 `precondition_required` without it); `*` writes " +
      "over any version; a stale one is 412 `precondition_failed` and nothing is written"
  }))
}
