// The bounded input time lives in the domain, where schedules use it too.
export { Instant } from "@atrium/domain"
