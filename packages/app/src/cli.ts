import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Logger, Option } from "effect"
import { Command } from "effect/cli"
import { cli } from "./admin-cli.ts"
import { cliFailureLine } from "./cli-failure.ts"
import { cliPresenter, invocationFailureLine } from "./cli-output.ts"

// A failure prints one line on stderr (exit code 1); only a defect, which is a bug, is also logged with its cause.
// A bad invocation (flag, value, command) is named with where its help is, never with the whole help page.
const reportFailure = (cause: Cause.Cause<unknown>) =>
  Cause.hasInterruptsOnly(cause)
    ? Effect.void
    : Option.match(invocationFailureLine(cause), {
      onSome: (line) => line === "" ? Effect.void : Console.error(`atrium: ${line}`),
      onNone: () =>
        Effect.andThen(
          Cause.hasFails(cause) ? Effect.void : Effect.logError("atrium CLI defect", cause),
          Console.error(`atrium: ${cliFailureLine(cause)}`)
        )
    })

cli.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.tapCause(reportFailure),
  Effect.provide([NodeServices.layer, Logger.layer([Logger.consoleJson]), cliPresenter]),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
