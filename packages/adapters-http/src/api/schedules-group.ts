import { HttpApi, HttpApiGroup, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { Authentication } from "./authentication.ts"
import { Authorization } from "./authorization.ts"
import { RateLimit } from "./rate-limit.ts"
import { scheduleOperations } from "./schedule-operations.ts"
import { strictPayloads } from "./strict-payloads.ts"

/** Schedules of `/api/v1`, behind API keys. */
export class SchedulesGroup extends HttpApiGroup.make("schedules")
  .add(...scheduleOperations("/schedules"))
  .annotate(HttpApi.PayloadParseOptions, strictPayloads)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .middleware(Authorization)
  .middleware(RateLimit)
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotateMerge(OpenApi.annotations({
    title: "schedules",
    description: "Recurring AI tasks on a cron in an IANA time zone, fired exactly once per occurrence across processes."
  }))
{}
