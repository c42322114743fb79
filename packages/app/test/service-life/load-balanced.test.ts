// Issue 24: two Atrium processes behind HAProxy (deploy/haproxy.cfg) on one database, under a steady mixed load:
// a rolling restart fails no request; a kill -9 fails only requests in flight on the killed process, its leased work
// is taken over, every accepted AI task settles exactly once and every event is delivered.
import { afterAll, describe, expect, it } from "vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { accessSync, constants, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Agent, createServer, request } from "node:http"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "../server-process.ts"
import { makeWaiters } from "../support/waiters.ts"
import { freePort } from "./probe.ts"

const root = join(import.meta.dirname, "..", "..", "..", "..")
const work = tempWorkDir("atrium-load-balanced-")
const cleanups: Array<() => void> = []
afterAll(() => {
  for (const cleanup of cleanups.reverse()) cleanup()
  rmSync(work, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// Debian installs it in /usr/sbin; .ci/run installs it when missing.
const haproxyBinary = () => {
  for (const path of ["/usr/sbin/haproxy", "/usr/bin/haproxy"]) {
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {
      // Not there.
    }
  }
  throw new Error("haproxy is not installed (apt-get install haproxy; .ci/run does)")
}

interface Answer {
  readonly status: number
  readonly body: string
}

// Idle connections are let go of after 10 s, before the balancer's keep-alive timeout (30 s) closes them under a request.
const agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 10_000 })
cleanups.push(() => agent.destroy())

// One request through the balancer; a connection error rejects.
const call = (port: number, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  new Promise<Answer>((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const req = request({
      host: "127.0.0.1",
      port,
      method,
      path,
      agent,
      headers: { ...headers, ...(text === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) }) }
    }, (res) => {
      let data = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => data += chunk)
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }))
      res.on("error", reject)
    })
    req.setTimeout(15_000, () => req.destroy(new Error("no answer within 15 s")))
    req.on("error", reject)
    req.end(text)
  })

// JSON bodies are read loosely: only a few fields matter here.
interface Body {
  readonly [name: string]: unknown
  readonly metadata?: { readonly idempotencyKey?: string }
  readonly data?: ReadonlyArray<{ readonly id: string; readonly type: string; readonly data: unknown }>
  readonly nextCursor?: string | null
}
const json = (answer: Answer): Body => JSON.parse(answer.body)
const field = (record: Body, name: string): string => String(record[name])

// The balancer's view of its servers (its CSV stats page): name → UP / DOWN / …
const serverStates = async (statsPort: number) => {
  const answer = await call(statsPort, "GET", "/stats;csv", {})
  const states = new Map<string, string>()
  for (const line of answer.body.split("\n")) {
    const [proxy, server, ...rest] = line.split(",")
    if (proxy === "atrium" && server !== undefined && server.startsWith("atrium")) states.set(server, rest[15] ?? "")
  }
  return states
}

// Resolves with `promise`, or rejects naming `what` when it has not settled within `withinMs`.
const within = <A>(what: string, promise: Promise<A>, withinMs = 60_000) =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${withinMs} ms`)), withinMs)
    promise.then(resolve, reject).finally(() => clearTimeout(timer))
  })

const until = async (what: string, check: () => Promise<boolean>, withinMs = 60_000) => {
  const began = Date.now()
  while (Date.now() - began < withinMs) {
    if (await check().catch(() => false)) return
    await sleep(100)
  }
  throw new Error(`${what}: not within ${withinMs} ms`)
}

describe("several processes behind HAProxy", () => {
  it("a rolling restart under a mixed load fails no request; a kill -9 fails only requests in flight; every accepted AI task settles once and every event is delivered", async () => {
    const haproxy = haproxyBinary()
    const dataDir = join(work, "data")
    const [frontPort, statsPort, portA, portB, receiverPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])

    // The loopback webhook receiver: the event ids it was sent, and the AI tasks whose settlement it was sent.
    const received = new Map<string, number>()
    const tasksSettled = new Set<string>()
    const deliveries = makeWaiters()
    const receiver = createServer((req, res) => {
      const id = req.headers["webhook-id"]
      let body = ""
      req.setEncoding("utf8")
      req.on("data", (chunk: string) => body += chunk)
      req.on("end", () => {
        if (typeof id === "string") received.set(id, (received.get(id) ?? 0) + 1)
        const task = /"task":\{"id":"([^"]+)"/.exec(body)?.[1]
        if (task !== undefined) tasksSettled.add(task)
        deliveries.happened()
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(receiverPort, "127.0.0.1", resolve))
    cleanups.push(() => receiver.close())

    // Both processes share the embedded database of one data directory (DATABASE_URL works the same way); a short
    // lease so a killed process's work comes back within the test; a drain delay longer than the balancer needs.
    const redisPrefix = `atrium-lb-${randomUUID()}:`
    const env = (port: number) => ({
      PORT: String(port),
      // One Redis prefix for every process (when ATRIUM_REDIS_URL is set), so they count limits together.
      ATRIUM_REDIS_PREFIX: redisPrefix,
      ATRIUM_DATA_DIR: dataDir,
      ATRIUM_DRAIN_DELAY: "3 seconds",
      ATRIUM_WORK_LEASE: "5 seconds",
      ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8",
      ATRIUM_RATE_LIMIT_PER_MINUTE: "100000"
    })
    const processes = new Map<string, ServerProcess>()
    cleanups.push(() => {
      for (const server of processes.values()) server.child.kill("SIGKILL")
    })
    const first = await startServer(env(portA), /sk_live_\w+/)
    processes.set("atrium1", first)
    const key = /sk_live_\w+/.exec(first.output())?.[0] ?? ""
    processes.set("atrium2", await startServer(env(portB)))

    const template = readFileSync(join(root, "deploy", "haproxy.cfg"), "utf8")
    const config = template
      .replace("bind 127.0.0.1:8080", `bind 127.0.0.1:${frontPort}`)
      .replace("server atrium1 127.0.0.1:3001", `server atrium1 127.0.0.1:${portA}`)
      .replace("server atrium2 127.0.0.1:3002", `server atrium2 127.0.0.1:${portB}`)
      .concat(`\nlisten stats\n    bind 127.0.0.1:${statsPort}\n    stats enable\n    stats uri /stats\n`)
    expect(config).toContain(`127.0.0.1:${portB}`)
    const configFile = join(work, "haproxy.cfg")
    writeFileSync(configFile, config)
    const balancer: ChildProcess = spawn(haproxy, ["-db", "-f", configFile], { stdio: ["ignore", "ignore", "pipe"] })
    // The balancer prints each server's state change ("Server atrium/atrium2 is DOWN, reason: …") on stderr.
    let balancerLog = ""
    const balancerSaid = makeWaiters()
    balancer.stderr?.on("data", (chunk: Buffer) => {
      balancerLog += chunk.toString()
      balancerSaid.happened()
    })
    const changes = (server: string, state: "UP" | "DOWN") => balancerLog.split(`Server atrium/${server} is ${state},`).length - 1
    // A server is in until its last change says DOWN (none is printed for the servers it starts with).
    const isUp = (server: string) => balancerLog.lastIndexOf(`Server atrium/${server} is DOWN,`) <= balancerLog.lastIndexOf(`Server atrium/${server} is UP,`)
    const balancerSees = (what: string, check: () => boolean) => within(`${what} behind the balancer`, balancerSaid.until(check))
    cleanups.push(() => balancer.kill("SIGKILL"))
    const bothUp = async () => {
      const states = await serverStates(statsPort)
      return states.get("atrium1") === "UP" && states.get("atrium2") === "UP"
    }
    await until("both servers up behind the balancer", bothUp)

    const auth = { authorization: `Bearer ${key}` }
    const endpoint = await call(frontPort, "POST", "/api/v1/webhook-endpoints", auth, {
      url: `http://127.0.0.1:${receiverPort}/hooks`,
      eventTypes: ["ai_task.succeeded", "ai_task.failed"]
    })
    expect(endpoint.status, endpoint.body).toBe(201)
    const endpointId = field(json(endpoint), "id")
    const accounts = ["lb-one@example.com", "lb-two@example.com"]
    for (const email of accounts) {
      const signUp = await call(frontPort, "POST", "/api/auth/sign-up", {}, { email, password: "correct horse battery", name: "Load" })
      expect(signUp.status, signUp.body).toBe(201)
    }

    // The load: lanes of one request at a time each, every outcome kept with its phase and start time.
    interface Outcome {
      readonly lane: string
      readonly phase: string
      readonly startedAt: number
      readonly status?: number
      readonly error?: string
    }
    const outcomes: Array<Outcome> = []
    // Which lanes (by number) have had an answer in each phase: the load flows when each fast lane has.
    const answeredIn = new Map<string, Set<number>>()
    const answers = makeWaiters()
    let lanesStarted = 0
    let phase = "steady"
    let loading = true
    const submitted = new Map<string, string | undefined>()
    const testEvents = new Set<string>()
    const expected: Record<string, ReadonlyArray<number>> = { read: [200], ai: [202], webhook: [200, 201, 202], signIn: [200] }
    let sequence = 0
    const lane = (name: string, pauseMs: number, send: () => Promise<Answer>, onAnswer: (answer: Answer) => void = () => {}) =>
      (async (number) => {
        while (loading && outcomes.length < 20_000) {
          const startedAt = Date.now()
          const at = phase
          try {
            const answer = await send()
            outcomes.push({ lane: name, phase: at, startedAt, status: answer.status })
            if (expected[name]?.includes(answer.status)) onAnswer(answer)
          } catch (error) {
            outcomes.push({ lane: name, phase: at, startedAt, error: error instanceof Error ? error.message : String(error) })
          }
          if (pauseMs < 1_000) answeredIn.set(at, (answeredIn.get(at) ?? new Set()).add(number))
          answers.happened()
          await sleep(pauseMs)
        }
      })(lanesStarted++)
    const lanes = [
      lane("read", 20, () => call(frontPort, "GET", "/api/v1/workspaces/current", auth)),
      lane("read", 20, () => call(frontPort, "GET", "/api/v1/entitlements", auth)),
      ...[0, 1].map(() => {
        return lane("ai", 100, () => {
          const idempotencyKey = `lb-${++sequence}`
          submitted.set(idempotencyKey, undefined)
          return call(frontPort, "POST", "/api/v1/ai-tasks", { ...auth, "idempotency-key": idempotencyKey }, {
            model: "atrium-local-1",
            input: { prompt: `Hello ${idempotencyKey}` },
            metadata: { idempotencyKey }
          })
        }, (answer) => {
          const task = json(answer)
          const idempotencyKey = task.metadata?.idempotencyKey
          if (idempotencyKey !== undefined) submitted.set(idempotencyKey, field(task, "id"))
        })
      }),
      lane("webhook", 250, () => call(frontPort, "POST", `/api/v1/webhook-endpoints/${endpointId}/test`, auth), (answer) => {
        testEvents.add(field(json(answer), "eventId"))
      }),
      lane("signIn", 3_000, () => {
        const email = accounts[outcomes.length % accounts.length] ?? ""
        return call(frontPort, "POST", "/api/auth/sign-in", {}, { email, password: "correct horse battery" })
      })
    ]
    const failed = (outcome: Outcome) => outcome.error !== undefined || (outcome.status ?? 0) >= 500
    const unexpected = (outcome: Outcome) => !failed(outcome) && !(expected[outcome.lane] ?? []).includes(outcome.status ?? 0)

    // Every lane asking more than once a second has had an answer in `name`'s phase (the sign-in lane pauses 3 s).
    const fastLanes = lanes.length - 1
    const flowing = (name: string) => within(`load in the ${name} phase`, answers.until(() => (answeredIn.get(name)?.size ?? 0) >= fastLanes))

    await flowing("steady")
    // Rolling restart: each process in turn gets SIGTERM, drains, exits and starts again on its port.
    phase = "rolling"
    const stopMillis: Array<number> = []
    for (const [name, port] of [["atrium1", portA], ["atrium2", portB]] as const) {
      const server = processes.get(name)
      if (server === undefined) throw new Error(name)
      const signalled = Date.now()
      const upsBefore = changes(name, "UP")
      expect(await server.stop()).toBe(0)
      stopMillis.push(Date.now() - signalled)
      processes.set(name, await startServer(env(port)))
      // Taken out while it drained, in again once its checks pass, and the other one in too.
      await balancerSees(`${name} back, both in`, () => changes(name, "UP") > upsBefore && isUp("atrium1") && isUp("atrium2"))
    }
    phase = "between"
    // The restarted pair carries the load, the victim-to-be included, before the kill.
    await flowing("between")
    await processes.get("atrium2")?.printed(/"message":"request"/)

    // kill -9 of one process: only what was in flight on it may fail; its leased work comes back to the other.
    phase = "kill"
    const victim = processes.get("atrium2")?.child
    const downsBefore = changes("atrium2", "DOWN")
    // In flight on it: begun before it was gone (a killed process takes a moment to end, its socket still accepting).
    const killedAt = await new Promise<number>((resolve) => {
      victim?.once("exit", () => resolve(Date.now()))
      victim?.kill("SIGKILL")
    })
    processes.delete("atrium2")
    // The load goes on while the balancer still sends to the dead process, until it takes it out, and after.
    await balancerSees("atrium2 taken out", () => changes("atrium2", "DOWN") > downsBefore)
    phase = "after"
    await flowing("after")
    loading = false
    await Promise.all(lanes)

    // Submissions whose answer was lost are asked again with their Idempotency-Key: the task they made, or a new one.
    for (const [idempotencyKey, taskId] of submitted) {
      if (taskId !== undefined) continue
      const again = await call(frontPort, "POST", "/api/v1/ai-tasks", { ...auth, "idempotency-key": idempotencyKey }, {
        model: "atrium-local-1",
        input: { prompt: `Hello ${idempotencyKey}` },
        metadata: { idempotencyKey }
      })
      expect(again.status, again.body).toBe(202)
      submitted.set(idempotencyKey, field(json(again), "id"))
    }
    const tasks = [...submitted.values()].filter((id): id is string => id !== undefined)

    // Every accepted task settles (the killed process's leases end after 5 s): its ai_task.* event reaches the receiver …
    await within("every accepted AI task settled", deliveries.until(() => tasks.every((id) => tasksSettled.has(id))), 45_000)
    const settled = new Map<string, string>()
    for (const id of tasks) {
      const status = field(json(await call(frontPort, "GET", `/api/v1/ai-tasks/${id}`, auth)), "status")
      if (status === "succeeded" || status === "failed") settled.set(id, status)
    }
    // … exactly once (one ai_task.* event each), and every event reached the receiver.
    const events: Array<{ readonly id: string; readonly type: string; readonly data: unknown }> = []
    let cursor: string | null = null
    do {
      const page = json(await call(frontPort, "GET", `/api/v1/events?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`, auth))
      events.push(...(page.data ?? []))
      cursor = page.nextCursor ?? null
    } while (cursor !== null)
    const settlements = events.filter((event) => event.type.startsWith("ai_task."))
    const settlementsOf = new Map<string, number>()
    for (const event of settlements) {
      const text = JSON.stringify(event.data)
      const id = tasks.find((task) => text.includes(task))
      if (id !== undefined) settlementsOf.set(id, (settlementsOf.get(id) ?? 0) + 1)
    }
    const toDeliver = [...settlements.map((event) => event.id), ...testEvents]
    await within("every event delivered", deliveries.until(() => toDeliver.every((id) => received.has(id))), 45_000)

    const inPhase = (name: string) => outcomes.filter((outcome) => outcome.phase === name)
    const rollingFailed = inPhase("rolling").filter(failed)
    const killFailed = outcomes.filter((outcome) => outcome.phase !== "rolling" && failed(outcome))
    console.log([
      `load-balanced: ${outcomes.length} requests (${inPhase("rolling").length} during the rolling restart, ${inPhase("between").length + inPhase("kill").length + inPhase("after").length} from the end of it on, the kill -9 among them)`,
      `rolling restart: ${rollingFailed.length} failed; SIGTERM to exit under load ${stopMillis.map((ms) => `${ms} ms`).join(", ")}`,
      `kill -9: ${killFailed.length} failed, started ${killFailed.map((outcome) => outcome.startedAt - killedAt).join(", ")} ms from the process's end (${killFailed.map((outcome) => outcome.error ?? outcome.status).join(", ")})`,
      `AI tasks: ${tasks.length} accepted, ${settled.size} settled, ${[...settlementsOf.values()].filter((count) => count !== 1).length + tasks.length - settlementsOf.size} not settled exactly once`,
      `events: ${toDeliver.length} to deliver, ${toDeliver.filter((id) => !received.has(id)).length} lost, ${[...received.values()].filter((count) => count > 1).length} delivered more than once`
    ].join("\n"))

    expect(rollingFailed, balancerLog).toEqual([])
    // Only requests begun before the kill, at most one per lane, may fail.
    expect(killFailed.every((outcome) => outcome.startedAt <= killedAt)).toBe(true)
    expect(killFailed.length).toBeLessThanOrEqual(lanes.length)
    expect(outcomes.filter(unexpected)).toEqual([])
    expect(inPhase("rolling").length).toBeGreaterThan(500)
    expect(tasks.length).toBeGreaterThan(50)
    expect(tasks.filter((id) => settlementsOf.get(id) !== 1)).toEqual([])
    expect(toDeliver.filter((id) => !received.has(id))).toEqual([])
  }, 240_000)
})
