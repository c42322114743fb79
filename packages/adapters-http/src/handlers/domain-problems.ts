import {
  appearanceEtag,
  type Conflict,
  type DomainTaken,
  type EmailTaken,
  type IdempotencyKeyReused,
  type InsufficientCredits,
  type InvalidInput,
  type NotEntitled,
  type NotFound,
  type PreconditionFailed,
  type Unavailable,
  type UsageCapReached
} from "@atrium/domain"
import { Effect } from "effect"
import {
  ConflictProblem,
  DomainTakenProblem,
  IdempotencyKeyReusedProblem,
  InsufficientCreditsProblem,
  NotEntitledProblem,
  UsageCapReachedProblem
} from "../api/business-problems.ts"
import { EmailTakenProblem, PreconditionFailedProblem } from "../api/identity-problems.ts"
import { InvalidRequestProblem, NotFoundProblem, UnavailableProblem } from "../api/problems.ts"

// One mapper per domain error, so each handler catches exactly the errors its service declares.

const unavailable = new UnavailableProblem({ detail: "A dependency is unavailable; retry shortly" })

/** A domain `Unavailable` as the 503 problem: the client retries. */
export const unavailableProblem = (_: Unavailable) => Effect.fail(unavailable)

/** A domain `NotFound` as the 404 problem, naming only the kind of record (the same for another workspace's ids). */
export const notFoundProblem = (error: NotFound) =>
  Effect.fail(new NotFoundProblem({ detail: `No such ${error.resource}` }))

/** A broken business rule as the 400 `invalid_request` problem, with the rule's detail. */
export const invalidInputProblem = (error: InvalidInput) => Effect.fail(new InvalidRequestProblem({ detail: error.detail }))

/** A collision with existing state as 409 `conflict`. */
export const conflictProblem = (error: Conflict) => Effect.fail(new ConflictProblem({ detail: error.detail }))

/** A missing feature as 403 `not_entitled`, naming the feature. */
export const notEntitledProblem = (error: NotEntitled) =>
  Effect.fail(new NotEntitledProblem({ feature: error.feature, detail: `The workspace lacks the "${error.feature}" feature` }))

/** A meter at its cap as 402 `usage_cap_reached`, naming the meter. */
export const usageCapReachedProblem = (error: UsageCapReached) =>
  Effect.fail(new UsageCapReachedProblem({ meter: error.meter, detail: `This would exceed the monthly ${error.meter} cap` }))

/** Too little credit as 402 `insufficient_credits`. */
export const insufficientCreditsProblem = (_: InsufficientCredits) =>
  Effect.fail(new InsufficientCreditsProblem({ detail: "The available credit does not cover the worst-case cost" }))

/** A reused idempotency key as 409 `idempotency_key_reused`. */
export const idempotencyKeyReusedProblem = (_: IdempotencyKeyReused) =>
  Effect.fail(new IdempotencyKeyReusedProblem({ detail: "This Idempotency-Key was used for a different request" }))

/** An account that exists as 409 `email_taken`. */
export const emailTakenProblem = (_: EmailTaken) => Effect.fail(new EmailTakenProblem({ detail: "An account with this email exists; sign in instead" }))

/** A stale `If-Match` as 412 `precondition_failed`, naming the current `ETag`. */
export const preconditionFailedProblem = (error: PreconditionFailed) =>
  Effect.fail(new PreconditionFailedProblem({
    currentEtag: appearanceEtag(error.currentVersion),
    detail: "The resource changed since the version If-Match names; nothing was written"
  }))

/** A hostname another workspace holds as 409 `domain_taken`, saying which TXT value would claim it. */
export const domainTakenProblem = (error: DomainTaken) => Effect.fail(new DomainTakenProblem({ hostname: error.hostname, detail: error.detail }))
