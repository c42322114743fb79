import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Entitlements, Feature, Usage } from "@atrium/domain"
import { systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpServer } from "effect/http"
import openapiTS, { astToString } from "openapi-typescript"
import { AppUnderTest, seedKey, send } from "./harness.ts"
import { isRecord, member } from "./json.ts"

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)))
const tsc = join(packageDir, "../../node_modules/.bin/tsc")

// A plain TypeScript program, as a non-Effect integrator writes it: openapi-fetch over the generated `paths` types.
// It calls every v1 operation and reports each answer's status; `tsc` checks it against the generated types first.
const clientProgram = `import createClient from "openapi-fetch"
import type { paths } from "./v1.ts"

export interface Seen { readonly operation: string; readonly status: number }

export const run = async (baseUrl: string, key: string): Promise<ReadonlyArray<Seen>> => {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } })
  const seen: Array<Seen> = []
  const note = (operation: string, response: Response) => { seen.push({ operation, status: response.status }) }

  note("get /api/v1/workspaces/current", (await client.GET("/api/v1/workspaces/current")).response)
  note("get /api/v1/entitlements", (await client.GET("/api/v1/entitlements")).response)
  note("get /api/v1/models/requirements", (await client.GET("/api/v1/models/requirements")).response)
  note("get /api/v1/usage", (await client.GET("/api/v1/usage")).response)
  note("get /api/v1/domains", (await client.GET("/api/v1/domains", { params: { query: { limit: 10 } } })).response)

  const submitted = await client.POST("/api/v1/ai-tasks", {
    body: { model: "atrium-local-1", input: { prompt: "hello" }, maxOutputTokens: 64 },
    params: { header: { "idempotency-key": "generated-client-1" } }
  })
  note("post /api/v1/ai-tasks", submitted.response)
  const taskId: string = submitted.data?.id ?? "task_missing"
  note("get /api/v1/ai-tasks/{id}", (await client.GET("/api/v1/ai-tasks/{id}", { params: { path: { id: taskId } } })).response)

  const created = await client.POST("/api/v1/webhook-endpoints", { body: { url: "https://hooks.example.com/generated", eventTypes: null } })
  note("post /api/v1/webhook-endpoints", created.response)
  const secret: string = created.data?.secret ?? ""
  if (!secret.startsWith("whsec_")) throw new Error("no secret in the typed answer")
  const id: string = created.data?.id ?? "whe_missing"
  const endpoint = { params: { path: { id } } }
  note("get /api/v1/webhook-endpoints", (await client.GET("/api/v1/webhook-endpoints", { params: { query: { limit: 5 } } })).response)
  note("get /api/v1/webhook-endpoints/{id}", (await client.GET("/api/v1/webhook-endpoints/{id}", endpoint)).response)
  note("patch /api/v1/webhook-endpoints/{id}", (await client.PATCH("/api/v1/webhook-endpoints/{id}", { ...endpoint, body: { description: "generated" } })).response)
  note("post /api/v1/webhook-endpoints/{id}/rotate-secret", (await client.POST("/api/v1/webhook-endpoints/{id}/rotate-secret", endpoint)).response)
  const test = await client.POST("/api/v1/webhook-endpoints/{id}/test", endpoint)
  note("post /api/v1/webhook-endpoints/{id}/test", test.response)
  const deliveryId: string = test.data?.id ?? "dlv_missing"
  note("post /api/v1/webhook-endpoints/{id}/recover", (await client.POST("/api/v1/webhook-endpoints/{id}/recover", {
    ...endpoint,
    body: { since: new Date(Date.now() - 3_600_000).toISOString() }
  })).response)
  note("get /api/v1/webhook-endpoints/{id}/deliveries", (await client.GET("/api/v1/webhook-endpoints/{id}/deliveries", {
    params: { path: { id }, query: { limit: 10 } }
  })).response)
  const delivery = { params: { path: { id: deliveryId } } }
  note("get /api/v1/webhook-deliveries/{id}", (await client.GET("/api/v1/webhook-deliveries/{id}", delivery)).response)
  note("post /api/v1/webhook-deliveries/{id}/replay", (await client.POST("/api/v1/webhook-deliveries/{id}/replay", delivery)).response)
  note("get /api/v1/events", (await client.GET("/api/v1/events", { params: { query: { limit: 20 } } })).response)
  note("get /api/v1/event-types", (await client.GET("/api/v1/event-types")).response)
  note("get /api/v1/purchases", (await client.GET("/api/v1/purchases", { params: { query: { limit: 10 } } })).response)

  const schedule = await client.POST("/api/v1/schedules", {
    body: { name: "Weekly summary", cron: "0 9 * * 1", timezone: "Europe/Berlin", task: { model: "atrium-local-1", input: { prompt: "hello" } } }
  })
  note("post /api/v1/schedules", schedule.response)
  const scheduleId = { params: { path: { id: schedule.data?.id ?? "sch_missing" } } }
  note("get /api/v1/schedules", (await client.GET("/api/v1/schedules", { params: { query: { limit: 5 } } })).response)
  note("get /api/v1/schedules/{id}", (await client.GET("/api/v1/schedules/{id}", scheduleId)).response)
  note("patch /api/v1/schedules/{id}", (await client.PATCH("/api/v1/schedules/{id}", { ...scheduleId, body: { name: "Monday summary" } })).response)
  note("post /api/v1/schedules/{id}/pause", (await client.POST("/api/v1/schedules/{id}/pause", scheduleId)).response)
  note("post /api/v1/schedules/{id}/resume", (await client.POST("/api/v1/schedules/{id}/resume", scheduleId)).response)
  note("post /api/v1/schedules/{id}/run-now", (await client.POST("/api/v1/schedules/{id}/run-now", scheduleId)).response)
  note("get /api/v1/schedules/{id}/runs", (await client.GET("/api/v1/schedules/{id}/runs", scheduleId)).response)
  note("delete /api/v1/schedules/{id}", (await client.DELETE("/api/v1/schedules/{id}", scheduleId)).response)

  note("delete /api/v1/webhook-endpoints/{id}", (await client.DELETE("/api/v1/webhook-endpoints/{id}", endpoint)).response)
  return seen
}
`

const tsconfig = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    lib: ["es2022", "dom"],
    types: []
  },
  include: ["*.ts"]
}

describe("a plain TypeScript client generated from the v1 document (openapi-typescript + openapi-fetch)", () => {
  it.effect("type-checks, and calls every v1 operation on a live server with the documented answers", () =>
    Effect.gen(function*() {
      const { key, workspace } = yield* seedKey({ scopes: ["write"] })
      yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
      yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), 100_000)
      const served = yield* send("GET", "/api/v1/openapi")
      const document = served.body
      const dir = mkdtempSync(join(packageDir, ".generated-client-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const types = astToString(yield* Effect.promise(() => openapiTS(served.text)))
      writeFileSync(join(dir, "v1.ts"), types)
      writeFileSync(join(dir, "client.ts"), clientProgram)
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig))
      // The generated types accept the program: `limit: 5` is a number, bodies and path ids typed, answers typed.
      execFileSync(tsc, ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" })

      const baseUrl = yield* HttpServer.addressFormattedWith((address) => Effect.succeed(address))
      const loaded: unknown = yield* Effect.promise(() => import(pathToFileURL(join(dir, "client.ts")).href))
      const run = isRecord(loaded) ? loaded.run : undefined
      assert.isFunction(run)
      if (typeof run !== "function") return
      const result: unknown = yield* Effect.promise(() => Promise.resolve(run(baseUrl, key)))
      const seen = new Map<string, number>()
      for (const entry of Array.isArray(result) ? result : []) seen.set(String(member(entry, "operation")), Number(member(entry, "status")))

      // Every operation of the document was called, and answered 2xx.
      const operations = Object.entries(Object(member(document, "paths"))).flatMap(([path, item]) =>
        Object.keys(Object(item)).map((method) => `${method} ${path}`))
      assert.isAtLeast(operations.length, 16)
      for (const operation of operations) {
        const status = seen.get(operation)
        assert.isDefined(status, `${operation} was not called`)
        assert.isTrue(status !== undefined && status >= 200 && status < 300, `${operation} answered ${String(status)}`)
      }
    }).pipe(Effect.provide(AppUnderTest())), 60_000)
})
