import { CurrentMember, CurrentPrincipal } from "@atrium/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../api/api.ts"
import { makeScheduleActions } from "./schedule-actions.ts"

/** Handlers of `/api/v1/schedules…`: the API key is the principal. */
export const SchedulesHandlers = HttpApiBuilder.group(
  Api,
  "schedules",
  Effect.fn("SchedulesHandlers.make")(function*(handlers) {
    const actions = yield* makeScheduleActions
    return handlers
      .handle("listSchedules", ({ query }) => CurrentPrincipal.use((p) => actions.list(p, query)))
      .handle("createSchedule", ({ payload }) => CurrentPrincipal.use((p) => actions.create(p, payload)))
      .handle("getSchedule", ({ params }) => CurrentPrincipal.use((p) => actions.get(p, params.id)))
      .handle("updateSchedule", ({ params, payload }) => CurrentPrincipal.use((p) => actions.update(p, params.id, payload)))
      .handle("deleteSchedule", ({ params }) => CurrentPrincipal.use((p) => actions.remove(p, params.id)))
      .handle("pauseSchedule", ({ params }) => CurrentPrincipal.use((p) => actions.pause(p, params.id)))
      .handle("resumeSchedule", ({ params }) => CurrentPrincipal.use((p) => actions.resume(p, params.id)))
      .handle("runScheduleNow", ({ params }) => CurrentPrincipal.use((p) => actions.runNow(p, params.id)))
      .handle("listScheduleRuns", ({ params, query }) => CurrentPrincipal.use((p) => actions.runs(p, params.id, query)))
  })
)

/** Handlers of `/api/mobile/schedules…`: the member session is the principal. */
export const MobileSchedulesHandlers = HttpApiBuilder.group(
  Api,
  "mobileSchedules",
  Effect.fn("MobileSchedulesHandlers.make")(function*(handlers) {
    const actions = yield* makeScheduleActions
    return handlers
      .handle("previewSchedule", ({ query }) => actions.preview(query.cron, query.timezone))
      .handle("listSchedules", ({ query }) => CurrentMember.use((p) => actions.list(p, query)))
      .handle("createSchedule", ({ payload }) => CurrentMember.use((p) => actions.create(p, payload)))
      .handle("getSchedule", ({ params }) => CurrentMember.use((p) => actions.get(p, params.id)))
      .handle("updateSchedule", ({ params, payload }) => CurrentMember.use((p) => actions.update(p, params.id, payload)))
      .handle("deleteSchedule", ({ params }) => CurrentMember.use((p) => actions.remove(p, params.id)))
      .handle("pauseSchedule", ({ params }) => CurrentMember.use((p) => actions.pause(p, params.id)))
      .handle("resumeSchedule", ({ params }) => CurrentMember.use((p) => actions.resume(p, params.id)))
      .handle("runScheduleNow", ({ params }) => CurrentMember.use((p) => actions.runNow(p, params.id)))
      .handle("listScheduleRuns", ({ params, query }) => CurrentMember.use((p) => actions.runs(p, params.id, query)))
  })
)
