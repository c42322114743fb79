import { Workspaces } from "@atrium/domain"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { leanGroup } from "../src/server/lean-group.ts"
import { TestApi } from "./test-api.ts"

// A handler that reaches for a domain service per request would find none (its group holds only the middleware):
// `leanGroup` must refuse it at compile time. `tsc -b` fails this file if the refusal ever goes away.
const reachesForTheDomain = () =>
  leanGroup(
    // @ts-expect-error Workspaces is not a request-time service of a lean group
    HttpApiBuilder.group(TestApi, "test", (handlers) =>
      handlers
        .handle("echoWebhook", ({ payload }) => Effect.as(Effect.service(Workspaces), payload))
        .handle("unannotated", ({ payload }) => Effect.succeed(payload))
        .handle("items", () => Effect.succeed({ limit: 20 }))
        .handle("defect", () => Effect.succeed({ message: "" })))
  )

describe("lean handler groups", () => {
  it("refuse, by type, a handler that needs a domain service per request", () => {
    expect(typeof reachesForTheDomain).toBe("function")
  })
})
