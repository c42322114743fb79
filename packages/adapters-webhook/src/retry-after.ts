/** The longest wait honoured from a receiver's `Retry-After` (a day); longer asks are clamped, not trusted. */
export const maxRetryAfterSeconds = 86_400

// RFC 9110 HTTP-date forms all begin with a day name (IMF-fixdate, obsolete RFC 850 and asctime).
const httpDate = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /

/** Parses `Retry-After` (delta-seconds or HTTP-date, relative to `nowMillis`) into whole seconds; null when unparseable. */
export const parseRetryAfter = (value: string | undefined, nowMillis: number): number | null => {
  if (value === undefined) return null
  const text = value.trim()
  if (/^\d+$/.test(text)) return Math.min(Number(text), maxRetryAfterSeconds)
  if (!httpDate.test(text)) return null
  const at = Date.parse(text)
  if (Number.isNaN(at)) return null
  return Math.min(Math.max(0, Math.ceil((at - nowMillis) / 1000)), maxRetryAfterSeconds)
}
