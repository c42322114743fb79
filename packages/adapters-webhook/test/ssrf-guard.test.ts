import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import {
  blockedIpv4Ranges,
  blockedIpv6Ranges,
  checkAddress,
  classifyAddress,
  emptyAllowList,
  makeAllowList,
  parseCidr,
  parseIpAddress
} from "@atrium/adapters-webhook"
import type { BlockCategory } from "@atrium/adapters-webhook"

const category = (address: string): BlockCategory | "public" => {
  const verdict = classifyAddress(address)
  return verdict._tag === "Public" ? "public" : verdict.category
}

// Every blocked range with at least one address; URL-normalised spellings are covered in destination.test.ts.
const blockedTable: ReadonlyArray<readonly [string, BlockCategory]> = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this_network"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "link_local"],
  ["169.254.1.1", "link_local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.10", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmark"],
  ["198.19.255.255", "benchmark"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["fc00::1", "unique_local"],
  ["fd12:3456:789a::1", "unique_local"],
  ["fec0::1", "site_local"],
  ["ff02::1", "multicast"],
  ["ff0e::101", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001::1", "reserved"],
  ["100::1", "reserved"],
  ["64:ff9b:1::1", "reserved"],
  ["4000::1", "not_global_unicast"],
  // IPv4-mapped, dotted and hex.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::FFFF:A9FE:A9FE", "link_local"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["0:0:0:0:0:ffff:c0a8:0101", "private"],
  // IPv4-compatible (deprecated).
  ["::127.0.0.1", "loopback"],
  ["::7f00:1", "loopback"],
  ["::a9fe:a9fe", "link_local"],
  ["::8.8.8.8", "reserved"],
  // NAT64 with a blocked IPv4 inside.
  ["64:ff9b::127.0.0.1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "link_local"],
  ["64:ff9b::192.168.0.1", "private"],
  // 6to4 with a blocked IPv4 inside.
  ["2002:7f00:1::", "loopback"],
  ["2002:a9fe:a9fe::1", "link_local"],
  ["2002:0a00:0001:1234::5", "private"],
  // Not addresses at all.
  ["localhost", "invalid"],
  ["", "invalid"],
  ["127.1", "invalid"],
  ["010.0.0.1", "invalid"]
]

const publicTable: ReadonlyArray<string> = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "100.63.255.255", // just below CGNAT
  "100.128.0.0", // just above CGNAT
  "172.15.255.255", // just below 172.16/12
  "172.32.0.0", // just above 172.16/12
  "198.20.0.1", // just above 198.18/15
  "223.255.255.255", // just below multicast
  "2606:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001:80b::200e",
  "::ffff:8.8.8.8",
  "64:ff9b::8.8.8.8",
  "2002:0808:0808::1"
]

describe("SSRF guard", () => {
  it("blocks every reserved, private and special-purpose range, including IPv4 embedded in IPv6", () => {
    for (const [address, expected] of blockedTable) {
      assert.strictEqual(category(address), expected, address)
      assert.strictEqual(checkAddress(emptyAllowList, address)._tag, "Blocked", address)
    }
  })

  it("allows public IPv4 and IPv6 addresses", () => {
    for (const address of publicTable) {
      assert.strictEqual(category(address), "public", address)
      const verdict = checkAddress(emptyAllowList, address)
      assert.deepStrictEqual(verdict, { _tag: "Allowed", address, allowListed: false })
    }
  })

  it("parses every entry of its own range tables (a typo would fail closed, but silently)", () => {
    for (const entry of [...blockedIpv4Ranges, ...blockedIpv6Ranges]) {
      assert.isTrue(Result.isSuccess(parseCidr(entry.network.text)), entry.network.text)
      assert.notStrictEqual(entry.network.prefix, 0, entry.network.text)
    }
  })

  it("explains a refusal with the range", () => {
    const verdict = checkAddress(emptyAllowList, "::ffff:169.254.169.254")
    assert.strictEqual(verdict._tag, "Blocked")
    if (verdict._tag === "Blocked") {
      assert.include(verdict.reason, "cloud metadata")
      assert.include(verdict.reason, "IPv4-mapped")
    }
  })

  it.effect("lets allow-listed networks through, and only those", () =>
    Effect.gen(function*() {
      const allowList = yield* makeAllowList(["127.0.0.0/8", "fd00::/8"])
      assert.deepStrictEqual(checkAddress(allowList, "127.0.0.1"), { _tag: "Allowed", address: "127.0.0.1", allowListed: true })
      assert.deepStrictEqual(checkAddress(allowList, "::ffff:127.0.0.2"), {
        _tag: "Allowed",
        address: "::ffff:127.0.0.2",
        allowListed: true
      })
      assert.strictEqual(checkAddress(allowList, "fd00::5")._tag, "Allowed")
      assert.strictEqual(checkAddress(allowList, "::1")._tag, "Blocked")
      assert.strictEqual(checkAddress(allowList, "10.0.0.1")._tag, "Blocked")
      assert.strictEqual(checkAddress(allowList, "169.254.169.254")._tag, "Blocked")
      // An allow-list does not open NAT64/6to4 gateways towards the allowed IPv4 network.
      assert.strictEqual(checkAddress(allowList, "64:ff9b::127.0.0.1")._tag, "Blocked")
      assert.deepStrictEqual(checkAddress(allowList, "8.8.8.8"), { _tag: "Allowed", address: "8.8.8.8", allowListed: false })
      // Verdicts are remembered per allow-list: another list judges the same address afresh, both ways round.
      assert.strictEqual(checkAddress(emptyAllowList, "127.0.0.1")._tag, "Blocked")
      assert.strictEqual(checkAddress(allowList, "127.0.0.1")._tag, "Allowed")
      assert.strictEqual(checkAddress(yield* makeAllowList(["10.0.0.0/8"]), "10.0.0.1")._tag, "Allowed")
      assert.strictEqual(checkAddress(allowList, "10.0.0.1")._tag, "Blocked")
    }))

  it.effect("refuses an invalid allow-network, naming it", () =>
    Effect.gen(function*() {
      const invalid = ["127.0.0.1/8", "10.0.0.0/33", "::/129", "localhost/8", "1.2.3.4/8/1", "10.0.0.0/x", "300.0.0.0/8", "10.0.0.0/08"]
      for (const text of invalid) {
        const error = yield* Effect.flip(makeAllowList(["127.0.0.0/8", text]))
        assert.strictEqual(error._tag, "InvalidAllowNetwork")
        assert.strictEqual(error.network, text)
        assert.include(error.message, text)
      }
    }))

  it("parses addresses strictly", () => {
    assert.deepStrictEqual(parseIpAddress("::ffff:1.2.3.4"), parseIpAddress("::ffff:102:304"))
    assert.deepStrictEqual(parseIpAddress("[::1]"), parseIpAddress("::1"))
    for (const bad of ["1.2.3", "1.2.3.4.5", "::1::", "12345::", "1.2.3.256", "g::1"]) {
      assert.isTrue(parseIpAddress(bad)._tag === "None", bad)
    }
  })
})
