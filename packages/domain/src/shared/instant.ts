import { DateTime, Schema } from "effect"

// 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z: beyond is no time a client means, and some columns cannot hold it.
const earliest = -62_135_596_800_000
const latest = 253_402_300_799_999

/** An ISO-8601 UTC time within years 1–9999: the only times an input may name. */
export const Instant = Schema.DateTimeUtcFromString.check(
  Schema.makeFilter((time: DateTime.Utc) => {
    const millis = DateTime.toEpochMillis(time)
    return (millis >= earliest && millis <= latest) || "must be a time within years 1 to 9999"
  })
)
