// README "Operator CLI", run as written: every line of its block goes to one bash session in the repository, beside a
// running server on a fresh embedded database (the CLI joins that database, as the README says). Only placeholders are
// replaced, by what the commands before them printed: `key_…` (create-key, then roll-key), `sn_…`
// (list-store-notifications), `fr_…` (list-feature-requests: the first, and for `--into` the second). What the block
// takes for granted is made first through the server's own routes: Ada's account, two feature requests on the board, a
// stored App Store notification (signed by a test Apple chain the server trusts), and an endpoint of Acme's made with
// the key create-key printed (`whe_…`).
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { generateKeyPairSync } from "node:crypto"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { bashSession, commandsOf, shBlocks } from "./support/readme-shell.ts"
import { testApplePki } from "../../adapters-http/test/stores/test-certificates.ts"

const workDir = tempWorkDir("atrium-readme-cli-")
const dataDir = join(workDir, "data")
const pki = testApplePki()
const bundleId = "com.example.atrium"

let server: ServerProcess | undefined
let session: ReturnType<typeof bashSession> | undefined

type Body = Record<string, unknown>
const call = async (method: string, path: string, body?: unknown, token?: string) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${server?.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await response.text()
  const parsed: Body = text.length === 0 ? {} : JSON.parse(text)
  return { status: response.status, body: parsed }
}
const field = (body: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((value, key) => (typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined), body)

afterAll(async () => {
  session?.close()
  await server?.stop()
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("README: Operator CLI", () => {
  const [block = ""] = shBlocks("### Operator CLI")

  beforeAll(async () => {
    server = await startServer({
      ATRIUM_DATA_DIR: dataDir,
      ATRIUM_WEBHOOK_ALLOW_NETWORKS: "127.0.0.0/8",
      ATRIUM_APPLE_BUNDLE_ID: bundleId,
      ATRIUM_APPLE_ISSUER_ID: "issuer",
      ATRIUM_APPLE_KEY_ID: "KEY1",
      ATRIUM_APPLE_PRIVATE_KEY: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      ATRIUM_APPLE_API_URL: "http://127.0.0.1:9/apple",
      ATRIUM_APPLE_ROOT_CERTIFICATES: pki.root.cert.toString()
    }, /sk_live_\w+/)
    const ada = await call("POST", "/api/auth/sign-up", { email: "ada@example.com", password: "correct horse battery", name: "Ada" })
    expect(ada.status).toBe(201)
    const token = String(field(ada.body, "session", "accessToken"))
    for (const title of ["Dark mode for the dashboard", "Export usage as CSV"]) {
      expect((await call("POST", "/api/mobile/feature-requests", { title }, token)).status).toBe(201)
    }
    const notified = await call("POST", "/api/store-notifications/apple", {
      signedPayload: pki.sign({ notificationType: "TEST", notificationUUID: "readme-cli-1", signedDate: Date.now(), data: { bundleId, environment: "Production" } })
    })
    expect(notified.status, JSON.stringify(notified.body)).toBeLessThan(300)
    session = bashSession({ DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir })
  }, 180_000)

  it("every command of the block runs as written beside the server and exits 0", async () => {
    const commands = commandsOf(block)
    expect(commands.length).toBeGreaterThanOrEqual(20)
    expect(commands.every((command) => command.startsWith("npm run atrium -- "))).toBe(true)
    const values = new Map<string, ReadonlyArray<string>>()
    const substitute = (command: string) => {
      let out = command
      for (const prefix of ["key_", "sn_", "whe_", "fr_"]) {
        const found = values.get(prefix) ?? []
        let index = 0
        out = out.replaceAll(`${prefix}…`, () => {
          const value = found[index++]
          expect(value, `a value for ${prefix}… before: ${command}`).toBeDefined()
          return value ?? ""
        })
      }
      return out
    }
    const idsIn = (output: string, prefix: string) => [...output.matchAll(new RegExp(`"id":"(${prefix}\\w+)"`, "g"))].map((match) => match[1] ?? "")
    const answers: Array<{ readonly command: string; readonly output: string }> = []
    for (const command of commands) {
      const result = await (session?.run(substitute(command), 120_000) ?? Promise.reject(new Error("no session")))
      answers.push({ command, output: result.output })
      expect(result.status, `${command}\n${result.output}`).toBe(0)
      expect(result.output, command).not.toMatch(/^atrium: /m)
      // What a command printed names the values later commands use.
      if (command.includes("create-key") || command.includes("roll-key")) values.set("key_", idsIn(result.output, "key_").slice(0, 1))
      if (command.includes("list-store-notifications")) values.set("sn_", idsIn(result.output, "sn_"))
      if (command.includes("list-feature-requests")) values.set("fr_", idsIn(result.output, "fr_"))
      if (command.includes("create-key")) {
        // An integrator subscribes an endpoint with the new key (webhooks:write), as the "Try it" tour does.
        const key = /"key":"(sk_live_\w+)"/.exec(result.output)?.[1]
        expect(key, result.output).toBeDefined()
        const endpoint = await call("POST", "/api/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hooks", eventTypes: ["api_key.created"] }, key)
        expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
        values.set("whe_", [String(endpoint.body.id)])
      }
    }
    const outputOf = (fragment: string) => answers.find((answer) => answer.command.includes(fragment))?.output ?? ""
    expect(outputOf("--help")).toMatch(/create-workspace/)
    expect(outputOf("roll-key")).toMatch(/"key":"sk_live_\w+"/)
    expect(outputOf("list-store-notifications")).toMatch(/"source":"apple"/)
    expect(outputOf("rotate-webhook-secret")).toMatch(/whsec_/)
    expect(outputOf("list-members")).toMatch(/"email":"ada@example.com"/)
    expect(outputOf("list-keys")).not.toMatch(/sk_live_\w{20,}/)
    const [first, second] = values.get("fr_") ?? []
    expect(outputOf("set-feature-request-status")).toContain(`{"id":"${first}","status":"planned"`)
    // The merge moved the first request into the second (distinct ids, as the README's `--id fr_… --into fr_…` needs).
    expect(first).not.toBe(second)
    expect(outputOf("merge-feature-request")).toContain(`{"id":"${first}","status":"merged"`)
  }, 600_000)
})
