import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import {
  DestinationRefused,
  emptyAllowList,
  makeAllowList,
  type AllowList,
  resolveDestination,
  type Resolver,
  systemResolver,
  WebhookTransportNode
} from "@atrium/adapters-webhook"
import { WebhookTransport } from "@atrium/domain"

/** A resolver answering from a table, so tests need no network. */
const fakeResolver = (table: Record<string, ReadonlyArray<string>>): Resolver => (hostname) => {
  const addresses = table[hostname]
  return addresses === undefined
    ? Effect.fail(new DestinationRefused({ kind: "dns", reason: `${hostname} does not resolve` }))
    : Effect.succeed(addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })))
}

const resolver = fakeResolver({
  "hooks.example.com": ["93.184.215.14", "2606:4700::1111"],
  "rebind.example.com": ["93.184.215.14", "10.0.0.7"],
  "metadata.example.com": ["169.254.169.254"],
  "dev.example.com": ["127.0.0.1"],
  "mixed.example.com": ["127.0.0.1", "93.184.215.14"]
})

const check = (url: string, allowList: AllowList = emptyAllowList, using: Resolver = resolver) =>
  Effect.result(resolveDestination(url, { allowList, resolver: using, timeoutMillis: 2_000 }))

const refusal = (url: string, allowList: AllowList = emptyAllowList, using: Resolver = resolver) =>
  check(url, allowList, using).pipe(Effect.map((result) => Result.isFailure(result) ? result.failure : null))

describe("destination check", () => {
  it.effect("allows https to a public host and returns every checked address", () =>
    Effect.gen(function*() {
      const result = yield* check("https://hooks.example.com:8443/in?x=1")
      assert.isTrue(Result.isSuccess(result))
      if (Result.isSuccess(result)) {
        assert.deepStrictEqual(result.success.addresses.map((entry) => entry.address), ["93.184.215.14", "2606:4700::1111"])
        assert.strictEqual(result.success.port, 8443)
        assert.strictEqual(result.success.hostname, "hooks.example.com")
        assert.isTrue(result.success.secure)
      }
      const literal = yield* check("https://[2606:4700::1111]/hook")
      assert.isTrue(Result.isSuccess(literal))
      if (Result.isSuccess(literal)) {
        assert.strictEqual(literal.success.hostname, "2606:4700::1111")
        assert.strictEqual(literal.success.port, 443)
      }
    }))

  it.effect("refuses a host when any one of its addresses is blocked", () =>
    Effect.gen(function*() {
      const rebind = yield* refusal("https://rebind.example.com/")
      assert.strictEqual(rebind?.kind, "blocked")
      // The caller is told "not allowed"; only the server-side detail names the internal address.
      assert.strictEqual(rebind?.reason, "the destination is not allowed")
      assert.include(rebind?.detail, "10.0.0.7")
      assert.strictEqual((yield* refusal("https://metadata.example.com/"))?.kind, "blocked")
      // Allow-listing one address does not excuse a blocked sibling... and a public sibling does not excuse http.
      const allowList = yield* makeAllowList(["127.0.0.0/8"])
      assert.strictEqual((yield* refusal("http://mixed.example.com/", allowList))?.kind, "blocked")
      assert.isTrue(Result.isSuccess(yield* check("https://mixed.example.com/", allowList)))
    }))

  it.effect("refuses localhost via the real resolver", () =>
    Effect.gen(function*() {
      const refused = yield* refusal("https://localhost:8080/hook", emptyAllowList, systemResolver)
      assert.strictEqual(refused?.kind, "blocked")
      assert.notInclude(refused?.reason, "127.0.0.1")
      assert.include(refused?.detail, "loopback")
    }))

  it.effect("refuses IP literals and odd IPv4 spellings of blocked addresses", () =>
    Effect.gen(function*() {
      const urls = [
        "https://127.0.0.1/",
        "https://2130706433/",
        "https://0x7f.1/",
        "https://0x7f000001/",
        "https://127.1/",
        "https://0177.0.0.1/",
        "https://017700000001/",
        "https://127.000.000.001/",
        "https://0/",
        "https://169.254.169.254/latest/meta-data/",
        "https://2852039166/",
        "https://[::1]/",
        "https://[::]/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:7f00:1]/",
        "https://[0:0:0:0:0:ffff:a9fe:a9fe]/",
        "https://[::127.0.0.1]/",
        "https://[64:ff9b::127.0.0.1]/",
        "https://[2002:7f00:1::1]/",
        "https://[fd00::1]/",
        "https://[fe80::1]/",
        "https://10.0.0.1./",
        "https://%31%32%37.0.0.1/"
      ]
      for (const url of urls) {
        assert.strictEqual((yield* refusal(url))?.kind, "blocked", url)
      }
    }))

  it.effect("refuses other schemes, credentials and bad ports", () =>
    Effect.gen(function*() {
      const allowList = yield* makeAllowList(["127.0.0.0/8"])
      const urls = [
        "ftp://hooks.example.com/",
        "file:///etc/passwd",
        "gopher://hooks.example.com/",
        "javascript:alert(1)",
        "https://user:pass@hooks.example.com/",
        "https://user@hooks.example.com/",
        "https://:pass@hooks.example.com/",
        "http://user:pass@127.0.0.1:8080/",
        "https://hooks.example.com:99999/",
        "https://hooks.example.com:80a/",
        "https://hooks.example.com:0/",
        "https://hooks.example.com:-1/",
        "not a url",
        "/relative/path",
        ""
      ]
      for (const url of urls) {
        assert.strictEqual((yield* refusal(url, allowList))?.kind, "blocked", url)
      }
    }))

  it.effect("allows http only to allow-listed networks", () =>
    Effect.gen(function*() {
      const http = yield* refusal("http://hooks.example.com/")
      assert.strictEqual(http?.kind, "blocked")
      assert.include(http?.reason, "https")
      assert.strictEqual((yield* refusal("http://8.8.8.8/"))?.kind, "blocked")
      assert.strictEqual((yield* refusal("http://127.0.0.1:8080/"))?.kind, "blocked")
      const allowList = yield* makeAllowList(["127.0.0.0/8"])
      const local = yield* check("http://127.0.0.1:8080/hook", allowList)
      assert.isTrue(Result.isSuccess(local))
      assert.isTrue(Result.isSuccess(yield* check("http://dev.example.com/hook", allowList)))
      assert.isTrue(Result.isSuccess(yield* check("http://localhost:8080/hook", allowList, systemResolver)))
      assert.strictEqual((yield* refusal("http://hooks.example.com/", allowList))?.kind, "blocked")
    }))

  it.effect("reports unresolvable hosts as dns failures", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* refusal("https://unknown.example.com/"))?.kind, "dns")
      assert.strictEqual((yield* refusal("https://does-not-exist.invalid/", emptyAllowList, systemResolver))?.kind, "dns")
    }))

  it.effect("checkDestination reports the port's verdicts", () =>
    Effect.gen(function*() {
      const transport = yield* WebhookTransport
      assert.deepStrictEqual(yield* transport.checkDestination("https://hooks.example.com/"), {
        _tag: "Allowed",
        addresses: ["93.184.215.14", "2606:4700::1111"]
      })
      const refused = yield* transport.checkDestination("https://metadata.example.com/")
      assert.strictEqual(refused._tag, "Refused")
      if (refused._tag === "Refused") {
        assert.strictEqual(refused.reason, "the destination is not allowed")
        assert.include(refused.detail, "169.254.169.254")
      }
      assert.strictEqual((yield* transport.checkDestination("http://hooks.example.com/"))._tag, "Refused")
    }).pipe(Effect.provide(WebhookTransportNode.layerWith({ allowNetworks: [], resolver }))))

  it.effect("refuses to build with an invalid allow-network", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(WebhookTransportNode.layerWith({ allowNetworks: ["127.0.0.1/8"] })))
      assert.strictEqual(error._tag, "InvalidAllowNetwork")
    }))
})
