import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { AppUnderTest, defaultOptions, seedKey, send } from "./harness.ts"
import { seedTeam } from "./identity-harness.ts"

// Every log line the server writes, as the app's JSON logger would structure it.
const lines: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
const Capture = Logger.layer([Logger.map(Logger.formatStructured, (line) => void lines.push(line))])

const accessLines = () => lines.filter((line) => JSON.stringify(line.message).includes("request") && "status" in line.annotations)

describe("access log", () => {
  it.effect("one JSON line per request: method, route template, status, duration, request id, principal id, never a credential", () =>
    Effect.gen(function*() {
      lines.length = 0
      const { apiKey, key } = yield* seedKey()
      const team = yield* seedTeam
      const ok = yield* send("GET", "/api/v1/workspaces/current", { key })
      // Another last character (one key in 62 already ends in Z): a key that does not exist.
      const refused = yield* send("GET", `/api/v1/webhook-endpoints/whe_abc?secret=x`, { key: `${key.slice(0, -1)}${key.endsWith("Z") ? "Y" : "Z"}` })
      const mobile = yield* send("GET", "/api/mobile/organization", { key: team.member.token })
      const lost = yield* send("GET", "/nowhere")
      const logged = accessLines()
      assert.strictEqual(logged.length, 4)
      const [first, second, third, fourth] = logged.map((line) => line.annotations)
      assert.deepInclude(first, { method: "GET", route: "/api/v1/workspaces/current", status: 200, requestId: ok.headers["x-request-id"], principalId: apiKey.id })
      assert.isNumber(first?.durationMs)
      assert.deepInclude(second, { route: "/api/v1/webhook-endpoints/:id", status: 401, requestId: refused.headers["x-request-id"], principalId: null })
      assert.deepInclude(third, { route: "/api/mobile/organization", status: 200, requestId: mobile.headers["x-request-id"] })
      assert.match(String(third?.principalId), /^ses_/)
      assert.deepInclude(fourth, { route: null, status: 404, requestId: lost.headers["x-request-id"] })
      const text = JSON.stringify(lines)
      for (const secret of [key, team.member.token, "secret=x"]) assert.notInclude(text, secret)
    }).pipe(Effect.provide(AppUnderTest({ ...defaultOptions, accessLog: true }).pipe(Layer.provide(Capture)))))
})
