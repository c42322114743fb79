import type { NotFound, Unavailable } from "@atrium/domain"
import { Effect } from "effect"
import { NotFoundProblem, UnavailableProblem } from "../api/problems.ts"

const unavailable = new UnavailableProblem({ detail: "A dependency is unavailable; retry shortly" })

/** A domain `Unavailable` as the 503 problem: the client retries. */
export const unavailableProblem = (_: Unavailable) => Effect.fail(unavailable)

/** A domain `NotFound` as the 404 problem, naming only the kind of record. */
export const notFoundProblem = (error: NotFound) =>
  Effect.fail(new NotFoundProblem({ detail: `No such ${error.resource}` }))
