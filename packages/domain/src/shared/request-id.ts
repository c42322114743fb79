import { Context, Option } from "effect"

/** The id of the request being served, when there is one, so audit entries can name it. */
export const CurrentRequestId = Context.Reference<Option.Option<string>>("@atrium/domain/CurrentRequestId", {
  defaultValue: () => Option.none()
})
