import {
  type CreateScheduleInput,
  CurrentPrincipal,
  type ScheduleId,
  Schedules,
  toScheduleRunView,
  toScheduleView,
  type UpdateScheduleInput
} from "@atrium/domain"
import { DateTime, Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@atrium/client"
import { leanGroup } from "../lean-group.ts"
import { type PageParams, pageRequestOf } from "./page-request.ts"

interface ScheduleParams {
  readonly params: { readonly id: ScheduleId }
}

/**
 * The schedule operations, written once over the domain for every interface that mounts them (`/api/v1` with keys,
 * `/api/mobile` with sessions): each acts as the request's principal, and `Schedules` applies the policy itself.
 */
const makeScheduleHandlers = Effect.gen(function*() {
  const schedules = yield* Schedules
  return {
    listSchedules: Effect.fn("Schedules.list")(function*({ query }: { readonly query: PageParams }) {
      const page = yield* schedules.list(yield* CurrentPrincipal, pageRequestOf(query))
      return { data: page.data.map(toScheduleView), nextCursor: page.nextCursor }
    }),
    createSchedule: Effect.fn("Schedules.create")(function*({ payload }: { readonly payload: CreateScheduleInput }) {
      return toScheduleView(yield* schedules.create(yield* CurrentPrincipal, payload))
    }),
    getSchedule: Effect.fn("Schedules.get")(function*({ params }: ScheduleParams) {
      return toScheduleView(yield* schedules.get(yield* CurrentPrincipal, params.id))
    }),
    updateSchedule: Effect.fn("Schedules.update")(
      function*({ params, payload }: ScheduleParams & { readonly payload: UpdateScheduleInput }) {
        return toScheduleView(yield* schedules.update(yield* CurrentPrincipal, params.id, payload))
      }
    ),
    deleteSchedule: Effect.fn("Schedules.remove")(function*({ params }: ScheduleParams) {
      yield* schedules.remove(yield* CurrentPrincipal, params.id)
    }),
    pauseSchedule: Effect.fn("Schedules.pause")(function*({ params }: ScheduleParams) {
      return toScheduleView(yield* schedules.pause(yield* CurrentPrincipal, params.id))
    }),
    resumeSchedule: Effect.fn("Schedules.resume")(function*({ params }: ScheduleParams) {
      return toScheduleView(yield* schedules.resume(yield* CurrentPrincipal, params.id))
    }),
    runScheduleNow: Effect.fn("Schedules.runNow")(function*({ params }: ScheduleParams) {
      return toScheduleRunView(yield* schedules.runNow(yield* CurrentPrincipal, params.id))
    }),
    listScheduleRuns: Effect.fn("Schedules.runs")(function*({ params, query }: ScheduleParams & { readonly query: PageParams }) {
      const page = yield* schedules.runs(yield* CurrentPrincipal, params.id, pageRequestOf(query))
      return { data: page.data.map(toScheduleRunView), nextCursor: page.nextCursor }
    })
  }
})

/** The schedule operations under `/api/v1`. */
export const SchedulesHandlers = Layer.unwrap(Effect.map(makeScheduleHandlers, (implemented) =>
  leanGroup(HttpApiBuilder.group(Api, "schedules", (handlers) => handlers.handleAll(implemented)))))

/** The same operations under `/api/mobile`, plus the preview (validation only: it reads no workspace data). */
export const MobileSchedulesHandlers = Layer.unwrap(Effect.gen(function*() {
  const schedules = yield* Schedules
  const implemented = yield* makeScheduleHandlers
  return leanGroup(HttpApiBuilder.group(Api, "mobileSchedules", (handlers) =>
    handlers.handleAll({
      ...implemented,
      previewSchedule: Effect.fn("Schedules.preview")(function*({ query }: { readonly query: { readonly cron: string; readonly timezone: string } }) {
        const next = yield* schedules.preview(query.cron, query.timezone)
        return { cron: query.cron, timezone: query.timezone, next: next.map(DateTime.formatIso) }
      })
    })))
}))
