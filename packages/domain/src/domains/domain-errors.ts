import { Schema } from "effect"

/** Another workspace holds the hostname; this workspace takes it only once its own TXT proof is published. */
export class DomainTaken extends Schema.TaggedError<DomainTaken>()("DomainTaken", {
  code: Schema.tag("domain_taken"),
  hostname: Schema.String,
  detail: Schema.String
}, { httpApiStatus: 409 }) {}
