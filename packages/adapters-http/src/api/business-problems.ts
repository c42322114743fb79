import { CapMeter } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

// Same conventions as `problems.ts`: the envelope fills `requestId` in.
const requestId = Schema.optionalKey(Schema.String.annotate({
  description: "Id of the request, also sent as the `x-request-id` header"
}))

const problemType = (code: string) => `https://atrium.dev/problems/${code}`

/** 409 `conflict`: the change collides with existing state (e.g. a 21st webhook endpoint, testing a disabled one). */
export class ConflictProblem extends HttpApiError.Problem<ConflictProblem>()("ConflictProblem", {
  type: problemType("conflict"),
  status: 409,
  title: "Conflict"
}, {
  code: Schema.tag("conflict"),
  requestId
}) {}

/** 409 `idempotency_key_reused`: the `Idempotency-Key` was used within 24 h for a different request. */
export class IdempotencyKeyReusedProblem extends HttpApiError.Problem<IdempotencyKeyReusedProblem>()("IdempotencyKeyReusedProblem", {
  type: problemType("idempotency_key_reused"),
  status: 409,
  title: "Idempotency key reused"
}, {
  code: Schema.tag("idempotency_key_reused"),
  requestId
}) {}

/** 403 `not_entitled`: the workspace lacks `feature`. */
export class NotEntitledProblem extends HttpApiError.Problem<NotEntitledProblem>()("NotEntitledProblem", {
  type: problemType("not_entitled"),
  status: 403,
  title: "Not entitled"
}, {
  code: Schema.tag("not_entitled"),
  requestId,
  feature: Schema.String.annotate({ description: "The feature the operation needs", examples: ["ai.basic"] })
}) {}

/** 402 `usage_cap_reached`: the operation would take `meter` beyond its monthly cap. */
export class UsageCapReachedProblem extends HttpApiError.Problem<UsageCapReachedProblem>()("UsageCapReachedProblem", {
  type: problemType("usage_cap_reached"),
  status: 402,
  title: "Usage cap reached"
}, {
  code: Schema.tag("usage_cap_reached"),
  requestId,
  meter: CapMeter
}) {}

/** 402 `insufficient_credits`: the available credit cannot cover the operation's worst-case cost. */
export class InsufficientCreditsProblem extends HttpApiError.Problem<InsufficientCreditsProblem>()("InsufficientCreditsProblem", {
  type: problemType("insufficient_credits"),
  status: 402,
  title: "Insufficient credits"
}, {
  code: Schema.tag("insufficient_credits"),
  requestId
}) {}

/** 409 `domain_taken`: another workspace holds the hostname; publish this workspace's own TXT value to claim it. */
export class DomainTakenProblem extends HttpApiError.Problem<DomainTakenProblem>()("DomainTakenProblem", {
  type: problemType("domain_taken"),
  status: 409,
  title: "Domain taken"
}, {
  code: Schema.tag("domain_taken"),
  requestId,
  hostname: Schema.String.annotate({ description: "The hostname another workspace holds", examples: ["app.example.com"] })
}) {}
