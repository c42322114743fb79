// The operator CLI beside a running server on the embedded database: adding and inviting people (the invitation's mail
// is sent by the server process, not the CLI) and the lists an operator needs to find ids.
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"

const root = join(import.meta.dirname, "..", "..", "..")
const workDir = tempWorkDir("atrium-operator-")
const dataDir = join(workDir, "data")
let server: ServerProcess

const atrium = (...args: Array<string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(process.execPath, ["packages/app/src/cli.ts", ...args], {
      cwd: root,
      // The CLI's own environment has no mail settings: whatever it mails must not depend on them.
      env: { ...process.env, DATABASE_URL: undefined, ATRIUM_DATA_DIR: dataDir, ATRIUM_MAIL_URL: undefined }
    }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
  })

const lines = (stdout: string): Array<Record<string, unknown>> =>
  stdout.trim().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

const post = async (path: string, body: unknown, token?: string) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const response = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) })
  return { status: response.status, body: await response.json() }
}

beforeAll(async () => {
  server = await startServer({ ATRIUM_DATA_DIR: dataDir }, /sk_live_\w+/)
}, 120_000)

afterAll(async () => {
  await server?.stop()
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

describe("operator CLI beside a running server", () => {
  it("adds an existing account to a workspace; refuses an unknown email in one line", async () => {
    const signedUp = await post("/api/auth/sign-up", { email: "ada@example.com", password: "correct horse battery", name: "Ada" })
    expect(signedUp.status).toBe(201)
    const added = await atrium("add-member", "--workspace", "demo", "--email", "ada@example.com", "--role", "admin")
    expect(added.code, added.stderr).toBe(0)
    expect(lines(added.stdout).at(-1)).toMatchObject({ role: "admin" })
    const again = await atrium("add-member", "--workspace", "demo", "--email", "ada@example.com")
    expect(again.code).toBe(1)
    expect(again.stderr.trim()).toMatch(/^atrium: conflict: .*already a member/)
    const unknown = await atrium("add-member", "--workspace", "demo", "--email", "nobody@example.com")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1)
    expect(unknown.stderr).toMatch(/no account has that email/)
    const members = await atrium("list-members", "--workspace", "demo")
    expect(members.code).toBe(0)
    expect(lines(members.stdout).map((member) => [member.email, member.role])).toContainEqual(["ada@example.com", "admin"])
    // Ada now sees Demo among her workspaces.
    const signedIn = await post("/api/auth/sign-in", { email: "ada@example.com", password: "correct horse battery" })
    const token = String(signedIn.body.session.accessToken)
    const organization = await (await fetch(`${server.baseUrl}/api/mobile/organization`, { headers: { authorization: `Bearer ${token}` } })).json()
    expect(JSON.stringify(organization.memberships)).toContain('"slug":"demo"')
  }, 120_000)

  it("invites by email: the server's mail worker sends the invitation the CLI committed", async () => {
    const invited = await atrium("invite", "--workspace", "demo", "--email", "max@example.com", "--role", "member")
    expect(invited.code, invited.stderr).toBe(0)
    const invitation = lines(invited.stdout).at(-1) ?? {}
    expect(invitation).toMatchObject({ email: "max@example.com", role: "member" })
    expect(String(invitation.token)).toMatch(/^it_/)
    // The server process (the log mailer of the embedded default) sends it, with the link.
    await server.printed(`accept-invitation#token=${String(invitation.token)}`)
  }, 120_000)

  it("lists workspaces, keys, feature requests, failed mail and store notifications", async () => {
    const workspaces = await atrium("list-workspaces")
    expect(lines(workspaces.stdout).map((workspace) => workspace.slug)).toEqual(expect.arrayContaining(["demo", "ada"]))
    const keys = await atrium("list-keys", "--workspace", "demo")
    const [key] = lines(keys.stdout)
    expect(key).toMatchObject({ name: "demo", scopes: ["write"] })
    expect(keys.stdout).not.toMatch(/sk_live_\w{20,}/)
    const signedIn = await post("/api/auth/sign-in", { email: "ada@example.com", password: "correct horse battery" })
    const created = await post("/api/mobile/feature-requests", { title: "Offline docs for operators" }, String(signedIn.body.session.accessToken))
    expect(created.status).toBe(201)
    const requests = await atrium("list-feature-requests", "--status", "open")
    expect(lines(requests.stdout)).toContainEqual(expect.objectContaining({ id: created.body.featureRequest.id, title: "Offline docs for operators" }))
    for (const command of [["list-failed-mail"], ["list-store-notifications"], ["list-store-notifications", "--only", "pending"], ["list-store-notifications", "--only", "applied"]]) {
      const listed = await atrium(...command)
      expect(listed.code, `${command.join(" ")}: ${listed.stderr}`).toBe(0)
      expect(listed.stderr, command.join(" ")).toBe("")
    }
  }, 120_000)
})
