import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect, Logger } from "effect"
import { Command } from "effect/cli"
import { cli } from "./admin-cli.ts"
import { cliFailureLine } from "./cli-failure.ts"

// A failure prints one line on stderr (exit code 1); only a defect, which is a bug, is also logged with its cause.
const reportFailure = (cause: Cause.Cause<unknown>) =>
  Cause.hasInterruptsOnly(cause)
    ? Effect.void
    : Effect.andThen(
      Cause.hasFails(cause) ? Effect.void : Effect.logError("atrium CLI defect", cause),
      Console.error(`atrium: ${cliFailureLine(cause)}`)
    )

cli.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.tapCause(reportFailure),
  Effect.provide([NodeServices.layer, Logger.layer([Logger.consoleJson])]),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
