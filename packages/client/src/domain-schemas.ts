import { DomainView, SafeText } from "@atrium/domain"
import { Schema } from "effect"

/** `POST /api/mobile/domains`: the hostname as typed (normalised by the domain: lower-case, punycode, no trailing dot). */
export const CreateDomain = Schema.Struct({
  hostname: SafeText.check(Schema.isBetweenLength(1, 300)).annotate({
    description: "The hostname to claim, e.g. `app.example.com` or `bücher.example`",
    examples: ["app.example.com"]
  })
}).annotate({ identifier: "CreateDomain" })

/** A page of domains, newest first. */
export const DomainList = Schema.Struct({
  data: Schema.Array(DomainView),
  nextCursor: Schema.NullOr(Schema.String)
}).annotate({ identifier: "DomainList" })
