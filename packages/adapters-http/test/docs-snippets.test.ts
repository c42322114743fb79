import { execFileSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Webhook } from "standardwebhooks"
import { nodeWebhookVerification, pythonWebhookVerification } from "@atrium/client"

// A delivery signed by the Standard Webhooks reference library, during a rotation (two signatures, the new one valid).
const secret = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`
const oldSecret = `whsec_${Buffer.from("o".repeat(32)).toString("base64")}`
const body = JSON.stringify({ id: "evt_1", type: "webhook.test", createdAt: "2026-01-01T00:00:00.000Z", workspaceId: "ws_1", data: {} })
const now = new Date()
const headers = {
  "webhook-id": "evt_1",
  "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
  "webhook-signature": `${new Webhook(oldSecret).sign("evt_1", now, body)} ${new Webhook(secret).sign("evt_1", now, body)}`
}
const cases = [
  { name: "a genuine delivery", secret, body, headers, valid: true },
  { name: "a tampered body", secret, body: body.replace("webhook.test", "webhook.fake"), headers, valid: false },
  { name: "another secret", secret: `whsec_${Buffer.from("x".repeat(32)).toString("base64")}`, body, headers, valid: false },
  { name: "an old timestamp", secret, body, headers: { ...headers, "webhook-timestamp": String(Math.floor(now.getTime() / 1000) - 3600) }, valid: false }
]

describe("the webhook verification snippets the docs show", () => {
  it("Node: accepts a genuine delivery and refuses tampering, other secrets and stale timestamps", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-snippet-"))
    const file = join(dir, "verify.cjs")
    writeFileSync(file, nodeWebhookVerification)
    const loaded: unknown = await import(pathToFileURL(file).href)
    const verify = typeof loaded === "object" && loaded !== null && "verifyWebhook" in loaded ? loaded.verifyWebhook : undefined
    expect(typeof verify).toBe("function")
    for (const item of cases) {
      expect(typeof verify === "function" ? verify(item.secret, item.headers, item.body) : undefined, item.name).toBe(item.valid)
    }
  })

  it("Python: the same answers", () => {
    const program = `${pythonWebhookVerification}
import json, sys
for case in json.loads(sys.stdin.read()):
    print(json.dumps(verify_webhook(case["secret"], case["headers"], case["body"])))
`
    const output = execFileSync("python3", ["-c", program], { input: JSON.stringify(cases), encoding: "utf8" })
    expect(output.trim().split("\n")).toEqual(cases.map((item) => String(item.valid)))
  })
})
