import { Conflict, InvalidInput, NotFound, Unavailable } from "@atrium/domain"
import { Cause, Option } from "effect"

// The first line of a message: a reason fits one line, and a stack never follows it.
const firstLine = (text: string) => text.split("\n")[0]?.trim() ?? ""

const describe = (error: unknown): string => {
  if (error instanceof NotFound) return `not found: no ${error.resource.replaceAll("_", " ")} by that name or id`
  if (error instanceof InvalidInput) return `invalid input: ${firstLine(error.detail)}`
  if (error instanceof Conflict) return `conflict: ${firstLine(error.detail)}`
  if (error instanceof Unavailable) return `the ${error.dependency} is unavailable; check that it is running and reachable, then retry`
  if (error instanceof Error) {
    const message = firstLine(error.message)
    return message.length > 0 ? message : error.name
  }
  return "the command failed"
}

/** One line saying why a CLI command failed: a domain error's reason, never an empty tag with a stack. */
export const cliFailureLine = (cause: Cause.Cause<unknown>): string =>
  Option.match(Cause.findErrorOption(cause), {
    onSome: describe,
    onNone: () => "unexpected internal error (details in the log line above)"
  })
