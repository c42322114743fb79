import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

const requestId = Schema.optionalKey(Schema.String.annotate({ description: "Id of the request, also sent as the `x-request-id` header" }))
const problemType = (code: string) => `https://atrium.dev/problems/${code}`

/** 409 `purchase_owned_elsewhere`: the store's purchase is bound to another workspace and stays there. */
export class PurchaseOwnedElsewhereProblem extends HttpApiError.Problem<PurchaseOwnedElsewhereProblem>()("PurchaseOwnedElsewhereProblem", {
  type: problemType("purchase_owned_elsewhere"),
  status: 409,
  title: "Purchase owned elsewhere"
}, { code: Schema.tag("purchase_owned_elsewhere"), requestId }) {}

/** 409 `store_not_configured`: this server does not sell through that store. */
export class StoreNotConfiguredProblem extends HttpApiError.Problem<StoreNotConfiguredProblem>()("StoreNotConfiguredProblem", {
  type: problemType("store_not_configured"),
  status: 409,
  title: "Store not configured"
}, { code: Schema.tag("store_not_configured"), requestId }) {}

/** 401 `invalid_signature`: the store notification's (or signed transaction's) signature, chain, bundle or environment fails. */
export class InvalidSignatureProblem extends HttpApiError.Problem<InvalidSignatureProblem>()("InvalidSignatureProblem", {
  type: problemType("invalid_signature"),
  status: 401,
  title: "Invalid signature"
}, { code: Schema.tag("invalid_signature"), requestId }) {}
