// `DATABASE_URL=… node packages/app/bench/walk.ts`: the project files whose functions run for one read, followed from
// the Node server to the handler and the repository. The real server runs in this process over a fresh database on
// DATABASE_URL's server; V8's precise coverage, reset before each request, names every file that ran. Each read is
// walked cold (the credential's first use: caches miss) and hot (served from them).
import { randomBytes } from "node:crypto"
import { Session } from "node:inspector/promises"
import { Effect, Fiber, Layer } from "effect"
import { appConfig } from "../src/app-config.ts"
import { serverLayer } from "../src/server.ts"
import { freshDatabase } from "./fresh-database.ts"

const root = new URL("../../../", import.meta.url).href
const port = 40000 + (process.pid % 20000)
const base = `http://127.0.0.1:${port}`
const json = { "content-type": "application/json" }
const database = await freshDatabase(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", "walk")
Object.assign(process.env, {
  PORT: String(port),
  HOST: "127.0.0.1",
  DATABASE_URL: database.url,
  ATRIUM_WORKERS: "false",
  ATRIUM_SECRET_KEY: randomBytes(32).toString("base64")
})
const server = Effect.runFork(Effect.flatMap(appConfig, (config) => Layer.launch(serverLayer(config))))

const listening = async (until: number): Promise<void> => {
  const up = await fetch(`${base}/api/v1/openapi`).then(() => true, () => false)
  if (up) return
  if (Date.now() > until) throw new Error("the server did not start")
  await new Promise((resolve) => setTimeout(resolve, 200))
  return listening(until)
}

try {
  await listening(Date.now() + 60_000)
  const signUp: { session?: { accessToken?: string } } = await (await fetch(`${base}/api/auth/sign-up`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email: `walk-${Date.now()}@example.com`, password: "correct horse battery", name: "Walk" })
  })).json()
  const token = signUp.session?.accessToken ?? ""
  const created: { key?: string } = await (await fetch(`${base}/api/mobile/api-keys`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "walk", scopes: ["read"] })
  })).json()
  const key = created.key ?? ""

  const coverage = new Session()
  coverage.connect()
  await coverage.post("Profiler.enable")
  await coverage.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  // The files that ran for one request (and any background work that ran meanwhile).
  const once = async (path: string, credential: string) => {
    await coverage.post("Profiler.takePreciseCoverage")
    const reply = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${credential}` } })
    await reply.text()
    // The access log's sink runs once the response has left.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const { result } = await coverage.post("Profiler.takePreciseCoverage")
    const files = result
      .filter((script) => script.url.startsWith(`${root}packages/`) && !script.url.includes("/bench/"))
      .filter((script) => script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0))
      .map((script) => script.url.slice(root.length))
    return { status: reply.status, files: new Set(files) }
  }
  // Cold: the first request (a credential's first use misses every cache). Hot: what two requests in a row both ran (background flushes drop out).
  const walk = async (label: string, path: string, credential: string) => {
    const cold = await once(path, credential)
    const first = await once(path, credential)
    const second = await once(path, credential)
    const hot = [...first.files].filter((file) => second.files.has(file))
    for (const [name, files] of [["cold", [...cold.files]], ["hot", hot]] as const) {
      const packages = new Set(files.map((file) => file.split("/")[1]))
      console.log(`\n${label}, ${name}: GET ${path} → ${cold.status}; ${files.length} files in ${packages.size} packages`)
      for (const file of [...files].sort()) console.log(`  ${file}`)
    }
  }
  await walk("API key", "/api/v1/workspaces/current", key)
  await walk("session", "/api/mobile/organization", token)
  await walk("member in a workspace", "/api/mobile/usage", token)
} finally {
  await Effect.runPromise(Fiber.interrupt(server))
  await database.drop()
}
