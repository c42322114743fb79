import { afterAll, describe, expect, it } from "@effect/vitest"
import { rmSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import { startServer, tempWorkDir } from "./server-process.ts"

// The data directory sits in its own temporary folder, beside the generated secret key.
const workDir = tempWorkDir("atrium-app-")
const dataDir = join(workDir, "data")
afterAll(() => rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }))

const keyPattern = /sk_live_[0-9A-Za-z]{39}/

describe("npm start on the embedded database", () => {
  it("first start seeds a demo workspace and prints a working key once; a restart keeps the data and prints none", async () => {
    const first = await startServer({ ATRIUM_DATA_DIR: dataDir }, keyPattern)
    const key = keyPattern.exec(first.output())?.[0] ?? ""
    const current = await fetch(`${first.baseUrl}/api/v1/workspaces/current`, { headers: { authorization: `Bearer ${key}` } })
    expect(current.status).toBe(200)
    const workspace: unknown = await current.json()
    expect(workspace).toMatchObject({ name: "Demo", slug: "demo", personal: false })
    expect(current.headers.get("x-request-id")).toMatch(/.+/)

    const anonymous = await fetch(`${first.baseUrl}/api/v1/workspaces/current`)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers.get("content-type")).toContain("application/problem+json")
    expect(await first.stop()).toBe(0)
    // The key is shown on the console once and never written into a log line.
    const logLines = first.output().split("\n").filter((line) => line.startsWith("{"))
    expect(logLines.length).toBeGreaterThan(0)
    expect(logLines.filter((line) => line.includes(key))).toEqual([])

    const second = await startServer({ ATRIUM_DATA_DIR: dataDir })
    try {
      const again = await fetch(`${second.baseUrl}/api/v1/workspaces/current`, { headers: { authorization: `Bearer ${key}` } })
      expect(again.status).toBe(200)
      expect(second.output()).not.toMatch(keyPattern)
    } finally {
      await second.stop()
    }
  }, 60_000)

  it("answers 408 and closes a connection whose request body stalls, within seconds", async () => {
    const server = await startServer({ ATRIUM_DATA_DIR: join(dataDir, "slow") })
    try {
      const { hostname, port } = new URL(server.baseUrl)
      const started = performance.now()
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), hostname, () => {
          // A body announced as 100 bytes, of which one arrives.
          socket.write("POST /api/auth/sign-in HTTP/1.1\r\nHost: atrium\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        })
        let received = ""
        socket.on("data", (chunk) => {
          received += chunk.toString()
        })
        socket.on("close", () => resolve(received))
      })
      expect(answer).toMatch(/^HTTP\/1\.1 408/)
      expect(performance.now() - started).toBeLessThan(13_000)
    } finally {
      await server.stop()
    }
  }, 60_000)

  it("serves the OpenAPI document and the offline docs page", async () => {
    const server = await startServer({ ATRIUM_DATA_DIR: join(dataDir, "docs") })
    try {
      const openapi = await fetch(`${server.baseUrl}/api/v1/openapi`)
      expect(openapi.status).toBe(200)
      const document: { openapi?: string } = await openapi.json()
      expect(document.openapi).toMatch(/^3\.1\./)
      const docs = await fetch(`${server.baseUrl}/api/docs`)
      expect(docs.status).toBe(200)
      expect(await docs.text()).not.toMatch(/cdn\.|unpkg|jsdelivr/)
    } finally {
      await server.stop()
    }
  }, 60_000)
})

// Only with a real server to point at (CI sets DATABASE_URL): the demo seed is for the embedded default alone.
const databaseUrl = process.env.DATABASE_URL
if (databaseUrl !== undefined && databaseUrl.length > 0) {
  describe("npm start on DATABASE_URL", () => {
    it("prints no demo key and refuses to start without a secret key", async () => {
      const secretKey = Buffer.alloc(32, 7).toString("base64")
      const server = await startServer({ DATABASE_URL: databaseUrl, ATRIUM_SECRET_KEY: secretKey })
      try {
        expect(server.output()).not.toMatch(keyPattern)
        expect((await fetch(`${server.baseUrl}/api/v1/workspaces/current`)).status).toBe(401)
      } finally {
        await server.stop()
      }
      await expect(startServer({ DATABASE_URL: databaseUrl })).rejects.toThrow(/ATRIUM_SECRET_KEY is required/)
    }, 60_000)
  })
}
