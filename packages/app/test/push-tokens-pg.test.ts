import { layerPorts, type MigrationServices } from "@atrium/adapters-pg"
import { EmbeddedPostgresTemp, PostgresTestSchema } from "@atrium/adapters-pg/testing"
import { ExpoPushService } from "@atrium/adapters-http/outbound"
import {
  Accounts,
  Invitations,
  Primitives,
  PushNotifications,
  PushSender,
  SecretBox,
  SecretHasher
} from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { afterAll, assert, beforeAll, layer } from "@effect/vitest"
import { Effect, Layer, Logger, Redacted, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer, type Server } from "node:http"

// The push service's credential; beside it, device tokens shaped like Expo's, unique enough that finding one is a leak.
const accessToken = "expo-access-9Hd3Kq7Wn2Lx5Vb8Rt1Zc4Pm"
const password = Redacted.make("correct horse battery")
let counter = 0
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`
const tokenOf = (tag: string) => `ExponentPushToken[${tag}${unique()}]`

/** What the fake push service received, by request. */
const received: Array<{ readonly authorization: string | undefined; readonly body: string }> = []

// A loopback stand-in for Expo's send API: a ticket for each message, except that a token containing "gone" is refused
// the way Expo refuses it, naming the token in the message and in the details.
let expo: Server
let expoUrl = ""
beforeAll(async () => {
  expo = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString()))
    request.on("end", () => {
      received.push({ authorization: request.headers.authorization, body })
      const messages: unknown = JSON.parse(body)
      const tickets = (Array.isArray(messages) ? messages : []).map((message: { readonly to?: string }, n) =>
        String(message.to).includes("gone")
          ? { status: "error", message: `"${message.to}" is not a registered push notification recipient`, details: { error: "DeviceNotRegistered", expoPushToken: message.to } }
          : { status: "ok", id: `ticket-${n}-${unique()}` }
      )
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: tickets }))
    })
  })
  await new Promise<void>((resolve) => expo.listen(0, "127.0.0.1", resolve))
  const address = expo.address()
  expoUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})
afterAll(() => new Promise<void>((resolve) => expo.close(() => resolve())))

const logLines: Array<string> = []

// Identity and push over the real Postgres ports, sending through the real Expo client; the migrations and the services
// share one secret box and digest, as in the app.
const domain = <A, E>(ports: Layer.Layer<A, E, MigrationServices>) =>
  Domain.layerOver(ports.pipe(Layer.provideMerge(Layer.merge(Primitives.layer, SecretBox.layerMemory))), {
    publicUrl: "https://app.atrium.test",
    replace: Layer.unwrap(Effect.sync(() => ExpoPushService.layer({ baseUrl: expoUrl, accessToken: Redacted.make(accessToken) }))).pipe(
      Layer.provide(FetchHttpClient.layer)
    )
  }).pipe(Layer.provideMerge(Logger.layer([Logger.formatJson.pipe(Logger.map((line) => void logLines.push(line)))])))

const databaseUrl = process.env.DATABASE_URL
const targets = [
  { label: "embedded PostgreSQL", layer: domain(layerPorts(EmbeddedPostgresTemp({ maxConnections: 4 }))) },
  ...(databaseUrl === undefined || databaseUrl === ""
    ? []
    : [{ label: "Postgres at DATABASE_URL", layer: domain(layerPorts(PostgresTestSchema(Redacted.make(databaseUrl), { maxConnections: 4 }))) }])
]

const member = (name: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const email = `${name}-${unique()}@example.com`
    const signedUp = yield* accounts.signUp({ email, password, name })
    return { email, principal: yield* accounts.authenticate(signedUp.session.accessToken) }
  })

const registration = (token: string) => ({ expoPushToken: Redacted.make(token), platform: "ios" as const, appVersion: "1.0.0", locale: "en" })

// Every row of both push tables, as text: what a dump of them would show.
const rawRows = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const devices = yield* sql`SELECT * FROM push_devices`
  const messages = yield* sql`SELECT * FROM push_messages`
  return JSON.stringify({ devices, messages })
})

const Digests = Schema.Array(Schema.Struct({ user_id: Schema.String, sealed_token: Schema.String }))

const sendDue = Effect.gen(function*() {
  const sender = yield* PushSender
  for (const batch of yield* sender.sendQueue.claim(10)) yield* sender.sendQueue.step(batch)
})

for (const target of targets) {
  layer(target.layer, { timeout: "120 seconds", excludeTestServices: true })(`push tokens on ${target.label}`, (it) => {
    it.effect("a registered token is in no column as plaintext; its sealed copy opens to it and its digest finds it", () =>
      Effect.gen(function*() {
        const push = yield* PushNotifications
        const ada = yield* member("ada")
        const token = tokenOf("adaphone")
        yield* push.register(ada.principal, "phone", registration(token))
        assert.notInclude(yield* rawRows, token.slice(18, -1))
        const sql = yield* SqlClient.SqlClient
        const digest = yield* (yield* SecretHasher).digest(Redacted.make(token))
        const rows = yield* sql`SELECT user_id, sealed_token FROM push_devices WHERE token_digest = ${digest}`.pipe(Effect.flatMap(Schema.decodeUnknownEffect(Digests)))
        assert.deepStrictEqual(rows.map((row) => row.user_id), [ada.principal.userId])
        assert.strictEqual(Redacted.value(yield* (yield* SecretBox).open(rows[0]?.sealed_token ?? "")), token)
        // The owner sees the token; printing what they get shows nothing of it.
        const mine = yield* push.devices(ada.principal)
        assert.deepStrictEqual(mine.map((device) => Redacted.value(device.expoPushToken)), [token])
        assert.notInclude(String(mine[0]?.device) + JSON.stringify(mine) + String(mine[0]?.expoPushToken), token.slice(18, -1))
      }))

    it.effect("the same token registered by another user moves the device to them: the digest is unique", () =>
      Effect.gen(function*() {
        const push = yield* PushNotifications
        const ada = yield* member("ada")
        const bob = yield* member("bob")
        const token = tokenOf("shared")
        yield* push.register(ada.principal, "tablet", registration(token))
        yield* push.register(bob.principal, "bobs-tablet", registration(token))
        assert.deepStrictEqual(yield* push.devices(ada.principal), [])
        assert.deepStrictEqual((yield* push.devices(bob.principal)).map((device) => Redacted.value(device.expoPushToken)), [token])
        const digest = yield* (yield* SecretHasher).digest(Redacted.make(token))
        const rows = yield* (yield* SqlClient.SqlClient)`SELECT user_id, sealed_token FROM push_devices WHERE token_digest = ${digest}`.pipe(
          Effect.flatMap(Schema.decodeUnknownEffect(Digests))
        )
        assert.deepStrictEqual(rows.map((row) => row.user_id), [bob.principal.userId])
      }))

    it.effect("a push goes to the Expo fake on loopback with the opened token; a refused token's device goes, and Expo's answer naming it is kept nowhere", () =>
      Effect.gen(function*() {
        const push = yield* PushNotifications
        const owner = yield* member("owner")
        const ada = yield* member("ada")
        const dan = yield* member("dan")
        const live = tokenOf("live")
        const gone = tokenOf("gone")
        yield* push.register(ada.principal, "phone", registration(live))
        yield* push.register(dan.principal, "phone", registration(gone))
        const before = received.length
        yield* (yield* Invitations).create(owner.principal, { email: ada.email, role: "member" })
        yield* (yield* Invitations).create(owner.principal, { email: dan.email, role: "member" })
        yield* sendDue
        const requests = received.slice(before)
        assert.isAbove(requests.length, 0)
        assert.deepStrictEqual([...new Set(requests.map((request) => request.authorization))], [`Bearer ${accessToken}`])
        const bodies = requests.map((request) => request.body).join("\n")
        assert.include(bodies, live)
        assert.include(bodies, gone)
        // Ada's message was taken; Dan's device is gone with its token, his message failed with the code alone.
        const sql = yield* SqlClient.SqlClient
        const statuses = yield* sql<{ user_id: string; status: string; last_error: string | null }>`
          SELECT user_id, status, last_error FROM push_messages WHERE user_id IN (${ada.principal.userId}, ${dan.principal.userId})
        `
        assert.deepStrictEqual(
          Object.fromEntries(statuses.map((row) => [row.user_id === ada.principal.userId ? "ada" : "dan", [row.status, row.last_error]])),
          { ada: ["sent", null], dan: ["failed", "DeviceNotRegistered"] }
        )
        assert.strictEqual((yield* push.devices(dan.principal)).length, 0)
        const raw = yield* rawRows
        for (const token of [live, gone]) {
          assert.notInclude(raw, token.slice(18, -1), "no push table row holds a token")
          assert.notInclude(logLines.join("\n"), token.slice(18, -1), "no log line names a token")
        }
        const events = yield* sql`SELECT * FROM events`
        assert.notInclude(JSON.stringify(events), live.slice(18, -1), "no event payload names a token")
      }))
  })
}
