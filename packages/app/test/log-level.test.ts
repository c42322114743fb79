import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import { appConfig } from "../src/app-config.ts"

const parsed = (level: string | undefined) =>
  Effect.runSyncExit(appConfig.parse(ConfigProvider.fromEnv({ env: level === undefined ? {} : { ATRIUM_LOG_LEVEL: level } })))

describe("ATRIUM_LOG_LEVEL", () => {
  it("is info by default, and takes the levels as operators write them", () => {
    const levels = [undefined, "debug", "info", "warn", "error"].map((level) => {
      const exit = parsed(level)
      return Exit.isSuccess(exit) ? exit.value.logLevel : "refused"
    })
    expect(levels).toEqual(["Info", "Debug", "Info", "Warn", "Error"])
  })

  it("refuses any other word at start, naming the variable", () => {
    const exit = parsed("verbose")
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("ATRIUM_LOG_LEVEL")
  })
})
