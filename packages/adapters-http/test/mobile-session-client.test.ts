import { MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import { HttpClient, HttpClientError } from "effect/http"
import { MobileSessionClient, SecureStore, sessionKeys, SignedOut } from "@atrium/client"
import { AppUnderTest, send, sendJson } from "./harness.ts"
import { password, seedTeam } from "./identity-harness.ts"

// The server's HttpClient, counting the requests by path and failing the first `dropped` of them like a lost network.
const instrumented = (dropped: number) =>
  Effect.gen(function*() {
    const server = yield* HttpClient.HttpClient
    const paths = yield* Ref.make<ReadonlyArray<string>>([])
    const drops = yield* Ref.make(dropped)
    const http = server.pipe(HttpClient.transform((effect, request) =>
      Effect.gen(function*() {
        yield* Ref.update(paths, (seen) => [...seen, new URL(request.url, "http://x").pathname])
        if ((yield* Ref.getAndUpdate(drops, (n) => n - 1)) > 0) {
          return yield* Effect.fail(new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, description: "connection reset" })
          }))
        }
        return yield* effect
      })))
    return { http, paths, drops }
  })

// A session client over `http` with its own SecureStore; backoff short enough for a test.
const sessionClient = (http: HttpClient.HttpClient) =>
  Effect.gen(function*() {
    return { session: yield* MobileSessionClient, store: yield* SecureStore }
  }).pipe(Effect.provide(MobileSessionClient.layer({ baseUrl: "", retries: 4, backoff: "10 millis" }).pipe(
    Layer.provideMerge(SecureStore.layerMemory),
    Layer.provide(Layer.succeed(HttpClient.HttpClient, http))
  )))

const stored = (store: SecureStore["Service"]) =>
  Effect.all({ access: store.get(sessionKeys.accessToken), refresh: store.get(sessionKeys.refreshToken) })
const countOf = (paths: ReadonlyArray<string>, path: string) => paths.filter((seen) => seen === path).length

describe("the reference mobile session client, against the real server", () => {
  it.live("signs in into the SecureStore and calls with the session; without a session it is SignedOut", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { http } = yield* instrumented(0)
      const { session, store } = yield* sessionClient(http)
      const none = yield* session.call((client) => client.authSession.getSession()).pipe(Effect.flip)
      assert.instanceOf(none, SignedOut)
      yield* session.signIn(team.owner.email, Redacted.make(password))
      const tokens = yield* stored(store)
      assert.isTrue(Option.isSome(tokens.access) && Option.isSome(tokens.refresh))
      const current = yield* session.call((client) => client.authSession.getSession())
      assert.strictEqual(current.activeWorkspaceId, team.workspaceId)
      yield* session.signOut
      assert.isTrue(Option.isNone((yield* stored(store)).access))
    }).pipe(Effect.provide(AppUnderTest())))

  it.live("on session_expired it refreshes once, keeps the new tokens and retries", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { http, paths } = yield* instrumented(0)
      const { session, store } = yield* sessionClient(http)
      yield* session.signIn(team.owner.email, Redacted.make(password))
      const first = yield* stored(store)
      // Another device of the same session rotated the tokens: the stored access token is now a replaced one.
      const rotated = yield* sendJson("POST", "/api/auth/refresh", "", { refreshToken: Option.getOrElse(first.refresh, () => "") })
      assert.strictEqual(rotated.status, 200, rotated.text)
      const newRefresh = String(Object(rotated.body.session).refreshToken)
      yield* store.set(sessionKeys.refreshToken, newRefresh)
      assert.strictEqual((yield* send("GET", "/api/auth/session", { key: Option.getOrElse(first.access, () => "") })).body.code, "session_expired")

      const current = yield* session.call((client) => client.authSession.getSession())
      assert.strictEqual(current.activeWorkspaceId, team.workspaceId)
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/refresh"), 1)
      const after = yield* stored(store)
      assert.notDeepEqual(after.access, first.access)
      assert.notDeepEqual(after.refresh, Option.some(newRefresh))
      // The new tokens work without another refresh.
      yield* session.call((client) => client.authSession.getSession())
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/refresh"), 1)
    }).pipe(Effect.provide(AppUnderTest())))

  it.live("on invalid_session it forgets the tokens and fails SignedOut, without refreshing", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { http, paths } = yield* instrumented(0)
      const { session, store } = yield* sessionClient(http)
      yield* session.signIn(team.owner.email, Redacted.make(password))
      const access = Option.getOrElse((yield* stored(store)).access, () => "")
      // The session ends elsewhere (signed out on another device).
      assert.strictEqual((yield* send("POST", "/api/auth/sign-out", { key: access })).status, 204)
      const failure = yield* session.call((client) => client.authSession.getSession()).pipe(Effect.flip)
      assert.instanceOf(failure, SignedOut)
      if (failure instanceof SignedOut) assert.strictEqual(failure.reason, "invalid_session")
      const tokens = yield* stored(store)
      assert.isTrue(Option.isNone(tokens.access) && Option.isNone(tokens.refresh))
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/refresh"), 0)
    }).pipe(Effect.provide(AppUnderTest())))

  it.live("retries network failures with backoff until the request gets through", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { http, paths, drops } = yield* instrumented(0)
      const { session } = yield* sessionClient(http)
      yield* session.signIn(team.owner.email, Redacted.make(password))
      // The next two requests are lost on the way.
      yield* Ref.set(drops, 2)
      const current = yield* session.call((client) => client.authSession.getSession())
      assert.strictEqual(current.activeWorkspaceId, team.workspaceId)
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/session"), 3)
    }).pipe(Effect.provide(AppUnderTest())))

  it.live("retries 503 unavailable with backoff until the database is back, and gives up after its retries", () =>
    Effect.gen(function*() {
      const team = yield* seedTeam
      const { http, paths } = yield* instrumented(0)
      const down = (yield* MemoryStore).down
      // The database comes back as the first retry goes out (one session request already seen), however slow the machine is.
      const recovering = http.pipe(HttpClient.transform((effect, request) =>
        Effect.gen(function*() {
          if (new URL(request.url, "http://x").pathname === "/api/auth/session" && countOf(yield* Ref.get(paths), "/api/auth/session") === 1) {
            yield* Ref.set(down, false)
          }
          return yield* effect
        })))
      const { session } = yield* sessionClient(recovering)
      yield* session.signIn(team.owner.email, Redacted.make(password))
      yield* Ref.set(down, true)
      const current = yield* session.call((client) => client.authSession.getSession())
      assert.strictEqual(current.activeWorkspaceId, team.workspaceId)
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/session"), 2)

      yield* Ref.set(down, true)
      const before = countOf(yield* Ref.get(paths), "/api/auth/session")
      const failure = yield* session.call((client) => client.authSession.getSession()).pipe(Effect.flip)
      assert.strictEqual(Object(failure)._tag, "Unavailable")
      assert.strictEqual(countOf(yield* Ref.get(paths), "/api/auth/session") - before, 5)
      yield* Ref.set(down, false)
    }).pipe(Effect.provide(AppUnderTest())))
})
