import {
  type AnyPrincipal,
  type Conflict,
  type Forbidden,
  type InvalidInput,
  type NotFound,
  type Unavailable,
  type CreateScheduleInput,
  type InsufficientScope,
  type ScheduleId,
  Schedules,
  toScheduleRunView,
  toScheduleView,
  type UpdateScheduleInput
} from "@atrium/domain"
import { DateTime, Effect } from "effect"
import type { ConflictProblem } from "../api/business-problems.ts"
import type { ForbiddenProblem } from "../api/identity-problems.ts"
import { InsufficientScopeProblem, type InvalidRequestProblem, type NotFoundProblem, type UnavailableProblem } from "../api/problems.ts"
import { forbiddenProblem } from "../middleware/session-refusals.ts"
import { conflictProblem, invalidInputProblem, notFoundProblem, unavailableProblem } from "./domain-problems.ts"

interface PageParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

const page = (query: PageParams) => ({ limit: query.limit ?? 20, cursor: query.cursor })

const insufficientScopeProblem = (error: InsufficientScope) =>
  Effect.fail(new InsufficientScopeProblem({ requiredScope: error.requiredScope, detail: `This operation needs the ${error.requiredScope} scope` }))

type ScheduleError = Forbidden | InsufficientScope | NotFound | InvalidInput | Conflict | Unavailable

// The service's refusals as the contract's problems (the operations declare this one set).
type ScheduleProblem = ForbiddenProblem | InsufficientScopeProblem | NotFoundProblem | InvalidRequestProblem | ConflictProblem | UnavailableProblem

const toProblem = (error: ScheduleError): Effect.Effect<never, ScheduleProblem> => {
  switch (error._tag) {
    case "Forbidden":
      return forbiddenProblem(error)
    case "InsufficientScope":
      return insufficientScopeProblem(error)
    case "NotFound":
      return notFoundProblem(error)
    case "InvalidInput":
      return invalidInputProblem(error)
    case "Conflict":
      return conflictProblem(error)
    case "Unavailable":
      return unavailableProblem(error)
  }
}

/** The schedule operations once, for `/api/v1` (API key) and `/api/mobile` (member session): the service checks permission. */
export const makeScheduleActions = Effect.gen(function*() {
  const schedules = yield* Schedules
  return {
    list: (principal: AnyPrincipal, query: PageParams) =>
      schedules.list(principal, page(query)).pipe(
        Effect.map((p) => ({ data: p.data.map(toScheduleView), nextCursor: p.nextCursor })),
        Effect.catch(toProblem)
      ),
    create: (principal: AnyPrincipal, payload: CreateScheduleInput) =>
      schedules.create(principal, payload).pipe(Effect.map(toScheduleView), Effect.catch(toProblem)),
    get: (principal: AnyPrincipal, id: ScheduleId) => schedules.get(principal, id).pipe(Effect.map(toScheduleView), Effect.catch(toProblem)),
    update: (principal: AnyPrincipal, id: ScheduleId, payload: UpdateScheduleInput) =>
      schedules.update(principal, id, payload).pipe(Effect.map(toScheduleView), Effect.catch(toProblem)),
    remove: (principal: AnyPrincipal, id: ScheduleId) => schedules.remove(principal, id).pipe(Effect.catch(toProblem)),
    pause: (principal: AnyPrincipal, id: ScheduleId) => schedules.pause(principal, id).pipe(Effect.map(toScheduleView), Effect.catch(toProblem)),
    resume: (principal: AnyPrincipal, id: ScheduleId) => schedules.resume(principal, id).pipe(Effect.map(toScheduleView), Effect.catch(toProblem)),
    runNow: (principal: AnyPrincipal, id: ScheduleId) => schedules.runNow(principal, id).pipe(Effect.map(toScheduleRunView), Effect.catch(toProblem)),
    runs: (principal: AnyPrincipal, id: ScheduleId, query: PageParams) =>
      schedules.runs(principal, id, page(query)).pipe(
        Effect.map((p) => ({ data: p.data.map(toScheduleRunView), nextCursor: p.nextCursor })),
        Effect.catch(toProblem)
      ),
    preview: (cron: string, timezone: string) =>
      schedules.preview(cron, timezone).pipe(
        Effect.map((next) => ({ cron, timezone, next: next.map(DateTime.formatIso) })),
        Effect.catch(toProblem)
      )
  }
})
