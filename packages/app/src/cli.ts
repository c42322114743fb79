import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Logger } from "effect"
import { Command } from "effect/cli"
import { cli } from "./admin-cli.ts"

cli.pipe(
  Command.run({ version: "0.1.0" }),
  Effect.provide([NodeServices.layer, Logger.layer([Logger.consoleJson])]),
  NodeRuntime.runMain
)
