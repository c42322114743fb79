import { CronExpression, IsoTime, ScheduleRunView, ScheduleView, TimeZoneName } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"

/** A page of schedules. */
export const ScheduleList = Schema.Struct({ data: Schema.Array(ScheduleView), nextCursor: NextCursor }).annotate({ identifier: "ScheduleList" })

/** A page of a schedule's runs, newest occurrence first. */
export const ScheduleRunList = Schema.Struct({ data: Schema.Array(ScheduleRunView), nextCursor: NextCursor }).annotate({ identifier: "ScheduleRunList" })

/** `?cron=&timezone=` of the preview: each checked by its own schema, so a bad one is a 400 naming its field. */
export const SchedulePreviewQuery = { cron: CronExpression, timezone: TimeZoneName }

/** The next five instants of a cron in a zone. */
export const SchedulePreview = Schema.Struct({
  cron: Schema.String,
  timezone: Schema.String,
  next: Schema.Array(IsoTime)
}).annotate({ identifier: "SchedulePreview" })
