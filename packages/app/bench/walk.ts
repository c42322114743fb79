// `DATABASE_URL=… node packages/app/bench/walk.ts`: the project files whose functions run for one walk, followed from
// the Node server to the handler and the repository, and on through the worker that finishes it. The real server runs
// in this process over a fresh database on DATABASE_URL's server; V8's precise coverage, reset before each walk, names
// every `src` file that ran. The walks: a key on a v1 read, a session on mobile reads, a change (a new API key) to its
// webhook attempt on a loopback receiver — made once through the domain (the change itself) and once by a session's
// request (the change with the door in front of it) — and an App Store notification (signed by a test PKI) to its
// grant. Each is walked cold (first use: caches miss, the worker's first item) and hot (what two walks in a row both
// ran), in two legs: until the answer (the door, or the use case's return), and after it (the worker's part). A summary
// ends the run: the plumbing every request passes (hot), and each walk's count, by leg and without the plumbing.
import { randomBytes, generateKeyPairSync } from "node:crypto"
import { Session } from "node:inspector/promises"
import { ApiKeys, SystemPrincipal, WorkspaceId } from "@atrium/domain"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import { appConfig } from "../src/app-config.ts"
import { AppDomain } from "../src/domain-layer.ts"
import { serverLayer } from "../src/server.ts"
import { Workers } from "../src/workers.ts"
import { testApplePki } from "../../adapters-http/test/stores/test-certificates.ts"
import { startFakeStores } from "../test/support/fake-stores.ts"
import { freshDatabase } from "./fresh-database.ts"
import { startReceiver } from "./loopback-receiver.ts"

const root = new URL("../../../", import.meta.url).href
const port = 40000 + (process.pid % 20000)
const base = `http://127.0.0.1:${port}`
const bundleId = "com.example.atrium"
const day = 86_400_000
const pki = testApplePki()
const stores = await startFakeStores()
const receiver = await startReceiver()
const database = await freshDatabase(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", "walk")
Object.assign(process.env, {
  PORT: String(port),
  HOST: "127.0.0.1",
  DATABASE_URL: database.url,
  ATRIUM_WORKERS: "false",
  ATRIUM_SECRET_KEY: randomBytes(32).toString("base64"),
  ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8",
  ATRIUM_STORE_PRODUCTS: JSON.stringify([{ store: "app_store", productId: "pro.monthly", kind: "subscription", features: ["ai.advanced"] }]),
  ATRIUM_APPLE_BUNDLE_ID: bundleId,
  ATRIUM_APPLE_ISSUER_ID: "issuer",
  ATRIUM_APPLE_KEY_ID: "KEY1",
  ATRIUM_APPLE_PRIVATE_KEY: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  ATRIUM_APPLE_API_URL: `${stores.url}/apple`,
  ATRIUM_APPLE_ROOT_CERTIFICATES: pki.root.cert.toString()
})
const config = await Effect.runPromise(appConfig)
const server = Effect.runFork(Layer.launch(serverLayer(config)))
// The workers run on a second domain over the same database, one queue at a time (`only`), so no other queue's polls
// run during a walk; the server's own workers are off.
const domainScope = Effect.runSync(Scope.make())
const domain = await Effect.runPromise(Layer.buildWithScope(AppDomain.layerWith(config), domainScope))
const workerOf = async (name: string) => {
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Effect.provide(Layer.buildWithScope(Workers.layerWith({ listen: true, only: [name] }), scope), domain))
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}

const pause = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))
// The answers' shapes are the contract's; a walk reads the few fields it needs.
interface Answer {
  readonly session?: { readonly accessToken?: string }
  readonly key?: string
  readonly id?: string
  readonly data?: ReadonlyArray<{ readonly status?: string }>
  readonly entitlements?: ReadonlyArray<{ readonly expiresAt?: string | null }>
}
const call = async (method: string, path: string, credential?: string, body?: unknown): Promise<{ status: number; text: string; body: Answer }> => {
  const reply = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await reply.text()
  return { status: reply.status, text, body: text === "" ? {} : JSON.parse(text) }
}
const listening = async (until: number): Promise<void> => {
  const up = await fetch(`${base}/api/v1/openapi`).then(() => true, () => false)
  if (up) return
  if (Date.now() > until) throw new Error("the server did not start")
  await pause(200)
  return listening(until)
}
const eventually = async (check: () => boolean, until: number): Promise<void> => {
  if (check()) return
  if (Date.now() > until) throw new Error("the walk did not finish")
  await pause(10)
  return eventually(check, until)
}

/** One walk: `act` starts it and says what it did; `settle` waits until it has finished (no request of its own); `check`, after the count, that it did. */
interface Walk {
  readonly label: string
  readonly act: () => Promise<string>
  readonly settle: () => Promise<void>
  readonly check?: () => Promise<void>
}

try {
  await listening(Date.now() + 60_000)
  const signUp = await call("POST", "/api/auth/sign-up", undefined, { email: `walk-${Date.now()}@example.com`, password: "correct horse battery", name: "Walk" })
  const token = signUp.body.session?.accessToken ?? ""
  const key = (await call("POST", "/api/mobile/api-keys", token, { name: "walk", scopes: ["read"] })).body.key ?? ""

  const coverage = new Session()
  coverage.connect()
  await coverage.post("Profiler.enable")
  await coverage.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  // The files that ran for one walk (and any background work that ran meanwhile).
  const ran = async () => {
    const { result } = await coverage.post("Profiler.takePreciseCoverage")
    return result
      .filter((script) => script.url.startsWith(`${root}packages/`) && /^packages\/[^/]+\/src\//.test(script.url.slice(root.length)))
      .filter((script) => script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0))
      .map((script) => script.url.slice(root.length))
  }
  // Counted in two parts: until the answer arrived, and after it (the access log, the worker's part of a walk).
  const once = async (walk: Walk) => {
    await coverage.post("Profiler.takePreciseCoverage")
    const line = await walk.act()
    const answered = new Set(await ran())
    await walk.settle()
    const after = new Set(await ran())
    await walk.check?.()
    return { line, answered, after, files: new Set([...answered, ...after]), onlyAfter: new Set([...after].filter((file) => !answered.has(file))) }
  }
  // Cold: the first walk (a credential's first use misses every cache). Hot: what two walks in a row both ran (background flushes drop out).
  interface Walked {
    readonly label: string
    readonly cold: ReadonlyArray<string>
    readonly hot: ReadonlyArray<string>
    /** Hot, each leg on its own: what ran until the answer, and what ran after it (a file may run in both). */
    readonly door: ReadonlyArray<string>
    readonly after: ReadonlyArray<string>
    /** A walk that starts inside the domain passes no door: it is left out of the plumbing every request passes. */
    readonly request: boolean
  }
  const walked: Array<Walked> = []
  const walk = async (walk: Walk, request = true) => {
    const cold = await once(walk)
    const first = await once(walk)
    const second = await once(walk)
    const both = (a: ReadonlySet<string>, b: ReadonlySet<string>) => [...a].filter((file) => b.has(file))
    const hot = both(first.files, second.files)
    for (const [name, files, run] of [["cold", [...cold.files], cold], ["hot", hot, second]] as const) {
      const packages = new Set(files.map((file) => file.split("/")[1]))
      const later = files.filter((file) => run.onlyAfter.has(file)).length
      console.log(`\n${walk.label}, ${name}: ${run.line}; ${files.length} files in ${packages.size} packages (${later} only after the answer: ·)`)
      for (const file of [...files].sort()) console.log(`  ${run.onlyAfter.has(file) ? "·" : " "} ${file}`)
    }
    walked.push({ label: walk.label, cold: [...cold.files], hot, door: both(first.answered, second.answered), after: both(first.after, second.after), request })
  }
  // The access log's sink runs once the response has left.
  const read = (label: string, path: string, credential: string): Walk => ({
    label,
    act: async () => `GET ${path} → ${(await call("GET", path, credential)).status}`,
    settle: () => pause(50)
  })
  await walk(read("API key", "/api/v1/workspaces/current", key))
  await walk(read("session", "/api/mobile/organization", token))
  await walk(read("member in a workspace", "/api/mobile/usage", token))

  // A change to its webhook attempt: a new API key's event, its delivery row, the worker's POST, the recorded attempt.
  const endpoint = await call("POST", "/api/mobile/webhooks", token, { url: receiver.url, eventTypes: ["api_key.created"] })
  if (endpoint.status !== 201) throw new Error(`the endpoint was refused: ${endpoint.text}`)
  const stopDeliveries = await workerOf("WebhookDeliveries")
  let keys = 0
  const delivered = async () => {
    const deliveries = await call("GET", `/api/mobile/webhooks/${endpoint.body.id}/deliveries`, token)
    const succeeded = (deliveries.body.data ?? []).filter((delivery) => delivery.status === "succeeded").length
    if (succeeded !== keys) throw new Error(`${succeeded} of ${keys} deliveries recorded as succeeded: ${deliveries.text}`)
  }
  // The change itself: the use case that makes it, run through the domain as the admin CLI runs it, with no door.
  const workspaceId = WorkspaceId.make((await call("GET", "/api/v1/workspaces/current", key)).body.id ?? "")
  const createKey = (name: string) => ApiKeys.use((apiKeys) => apiKeys.create(new SystemPrincipal({ name: "walk", workspaceId }), { name }))
  await walk({
    label: "change to its webhook attempt",
    act: async () => `ApiKeys.create → ${(await Effect.runPromise(Effect.provide(createKey(`changed ${++keys}`), domain))).apiKey.id}, delivered`,
    settle: () => eventually(() => receiver.received() >= keys, Date.now() + 10_000).then(() => pause(250)),
    check: delivered
  }, false)
  await walk({
    label: "a session's new key to its webhook attempt",
    act: async () => `POST /api/mobile/api-keys → ${(await call("POST", "/api/mobile/api-keys", token, { name: `hooked ${++keys}` })).status}, delivered`,
    // The attempt is recorded a few milliseconds after the receiver answers (the worker's group write).
    settle: () => eventually(() => receiver.received() >= keys, Date.now() + 10_000).then(() => pause(250)),
    check: delivered
  })
  await stopDeliveries()

  // An App Store notification to its grant: a renewal of a subscription the app synced, verified at the door, stored,
  // applied by the inbox worker (which polls every 250 ms) to the purchase and its grant.
  const signedAt = Date.now()
  const transaction = (n: number) => ({
    transactionId: `walk-${n}`,
    originalTransactionId: "walk-0",
    bundleId,
    productId: "pro.monthly",
    environment: "Production",
    signedDate: signedAt + n * 1_000,
    expiresDate: signedAt + (n + 1) * 30 * day
  })
  stores.appleStatuses.set("walk-0", [{
    originalTransactionId: "walk-0",
    status: 1,
    signedTransactionInfo: pki.sign(transaction(0)),
    signedRenewalInfo: pki.sign({ signedDate: signedAt, autoRenewStatus: 1 })
  }])
  const synced = await call("POST", "/api/mobile/purchases/sync", token, { store: "app_store", signedTransaction: pki.sign(transaction(0)) })
  if (synced.status !== 200) throw new Error(`the sync was refused: ${synced.text}`)
  const stopInbox = await workerOf("store-notifications")
  let renewals = 0
  await walk({
    label: "App Store notification to its grant",
    act: async () => {
      const tx = transaction(++renewals)
      const payload = {
        notificationType: "DID_RENEW",
        notificationUUID: `walk-renewal-${renewals}`,
        signedDate: tx.signedDate,
        data: { bundleId, environment: "Production", signedTransactionInfo: pki.sign(tx), signedRenewalInfo: pki.sign({ signedDate: tx.signedDate, autoRenewStatus: 1 }) }
      }
      return `POST /api/store-notifications/apple → ${(await call("POST", "/api/store-notifications/apple", undefined, { signedPayload: pki.sign(payload) })).status}, applied`
    },
    settle: () => pause(1_000),
    check: async () => {
      const entitlement = await call("GET", "/api/mobile/entitlement", token)
      const granted = (entitlement.body.entitlements ?? []).map((grant) => Date.parse(grant.expiresAt ?? ""))
      if (!granted.includes(transaction(renewals).expiresDate)) throw new Error(`renewal ${renewals} was not granted: ${entitlement.text}`)
    }
  })
  await stopInbox()

  // The plumbing every request passes (what all the walks ran, hot) is read once; each walk's own stops are the rest.
  const plumbing = walked.filter((w) => w.request).map((w) => new Set(w.hot)).reduce((shared, files) => new Set([...shared].filter((file) => files.has(file))))
  console.log(`\nthe plumbing every request passes, hot: ${plumbing.size} files`)
  for (const file of [...plumbing].sort()) console.log(`    ${file}`)
  console.log("\nwalk: files hot / cold (its own, beside the plumbing: hot / cold); hot by leg: until the answer + after it")
  for (const { label, cold, hot, door, after } of walked) {
    const own = (files: ReadonlyArray<string>) => files.filter((file) => !plumbing.has(file)).length
    console.log(`  ${label}: ${hot.length} / ${cold.length} (${own(hot)} / ${own(cold)}); ${door.length} + ${after.length}`)
  }
} finally {
  await Effect.runPromise(Fiber.interrupt(server))
  await Effect.runPromise(Scope.close(domainScope, Exit.void))
  await receiver.close()
  await stores.close()
  await database.drop()
}
