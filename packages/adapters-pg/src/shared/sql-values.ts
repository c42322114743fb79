import { DateTime, Option } from "effect"

/** An optional time as a driver parameter. */
export const dateOrNull = (time: Option.Option<DateTime.Utc>): Date | null => Option.getOrNull(Option.map(time, DateTime.toDateUtc))
