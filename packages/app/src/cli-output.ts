import { Cause, Console, Effect, Option } from "effect"
import { CliError, CliOutput, type HelpDoc } from "effect/cli"

// Subcommands in two columns wide enough for the longest name, whatever it is (the default table wraps at 20).
const subcommandTable = (doc: HelpDoc.HelpDoc) => {
  const commands = (doc.subcommands ?? []).flatMap((group) => group.commands)
  if (commands.length === 0) return ""
  const width = Math.max(...commands.map((command) => command.name.length)) + 2
  const rows = commands.map((command) => `  ${command.name.padEnd(width)}${command.shortDescription ?? command.description}`)
  return `\nSUBCOMMANDS\n${rows.join("\n")}\n`
}

/**
 * How the CLI shows help and refusals: help with aligned subcommands; an invalid invocation shows nothing here (the
 * entry point prints one line naming the fault and where the help is).
 */
export const cliPresenter = CliOutput.layerPresenter({
  present: (event) =>
    Effect.gen(function*() {
      if (event._tag === "InvalidInvocation") return
      if (event._tag === "Version") return yield* CliOutput.defaultPresenter.present(event)
      const formatter = yield* CliOutput.Formatter
      const { subcommands: _, ...rest } = event.helpDoc
      yield* Console.log(`${formatter.formatHelpDoc(rest).trimEnd()}\n${subcommandTable(event.helpDoc)}`)
    })
})

/**
 * The one line of an invalid invocation (a bad flag, a missing value, an unknown command), with where its help is;
 * none for help that was asked for or shown instead of running (no command given).
 */
export const invocationFailureLine = (cause: Cause.Cause<unknown>): Option.Option<string> =>
  Option.flatMap(Cause.findErrorOption(cause), (error) => {
    if (!CliError.isCliError(error)) return Option.none()
    if (error._tag !== "ShowHelp") return Option.some(error.message.split("\n")[0] ?? error.message)
    const first = error.errors[0]
    if (first === undefined) return Option.some("")
    const help = `${error.commandPath.join(" ")} --help`
    return Option.some(`${first.message.split("\n")[0] ?? first.message} (see: ${help})`)
  })
