import { Schema } from "effect"

/** Another workspace holds the hostname; this workspace takes it only once its own TXT proof is published. */
export class DomainTaken extends Schema.TaggedError<DomainTaken>()("DomainTaken", {
  code: Schema.tag("domain_taken"),
  hostname: Schema.String,
  detail: Schema.String
}, { httpApiStatus: 409 }) {}

/** A check was asked for too soon after the last one. */
export class DomainCheckRateLimited extends Schema.TaggedError<DomainCheckRateLimited>()("DomainCheckRateLimited", {
  code: Schema.tag("rate_limited"),
  retryAfterSeconds: Schema.Int
}, { httpApiStatus: 429 }) {}
