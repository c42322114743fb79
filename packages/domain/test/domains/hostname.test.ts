import { assert, describe, it } from "@effect/vitest"
import { hostnameToUnicode, isDeniedHostname, normalizeHostname } from "@atrium/domain"
import { Result } from "effect"

const ok = (input: string) => {
  const result = normalizeHostname(input)
  if (Result.isFailure(result)) return assert.fail(`${input}: ${result.failure}`)
  return result.success
}
const refused = (input: string) => {
  const result = normalizeHostname(input)
  if (Result.isSuccess(result)) return assert.fail(`${input} was accepted as ${result.success}`)
  return result.failure
}

describe("hostname rules", () => {
  it("lower-cases and drops one trailing dot", () => {
    assert.strictEqual(ok("App.Example.COM."), "app.example.com")
    assert.strictEqual(ok("  www.example.org  "), "www.example.org")
    assert.include(refused("example.com.."), "empty labels")
  })

  it("converts internationalized labels to punycode (RFC 3492 sample strings)", () => {
    assert.strictEqual(ok("Bücher.example"), "xn--bcher-kva.example")
    assert.strictEqual(ok("münchen.de"), "xn--mnchen-3ya.de")
    assert.strictEqual(ok("例え.テスト"), "xn--r8jz45g.xn--zckzah")
    assert.strictEqual(ok("straße.de"), "xn--strae-oqa.de")
    // Full-width letters and the ideographic full stop map like UTS #46 maps them.
    assert.strictEqual(ok("ｅｘａｍｐｌｅ。ｃｏｍ"), "example.com")
    assert.strictEqual(ok("他们为什么不说中文.example"), "xn--ihqwcrb4cv8a8dqg056pqjye.example")
    assert.strictEqual(ok("xn--bcher-kva.example"), "xn--bcher-kva.example")
  })

  it("refuses wildcards, IP addresses, ports, schemes, single labels and bad labels", () => {
    assert.include(refused("*.example.com"), "wildcard")
    assert.include(refused("192.168.0.1"), "IP address")
    assert.include(refused("10.1"), "IP address")
    assert.include(refused("0x7f.1"), "IP address")
    assert.include(refused("::1"), "IP address")
    assert.include(refused("[2001:db8::1]"), "IP address")
    assert.include(refused("example.com:443"), "port")
    assert.include(refused("https://example.com"), "without a scheme")
    assert.include(refused("localhost"), "two labels")
    assert.include(refused("-bad.example.com"), "hyphen")
    assert.include(refused("under_score.example.com"), "letters, digits and hyphens")
    assert.include(refused("smile😀.example.com"), "letters, digits and hyphens")
    assert.include(refused(`${"a".repeat(64)}.example.com`), "63")
    assert.include(refused(`${"abcdefghi.".repeat(26)}com`), "253")
    assert.include(refused(""), "required")
  })

  it("denies configured suffixes and special-use names, and everything under them", () => {
    const denied = ["atrium.dev", "Bücher.example"]
    assert.isTrue(isDeniedHostname(ok("atrium.dev"), denied))
    assert.isTrue(isDeniedHostname(ok("tenant.atrium.dev"), denied))
    assert.isFalse(isDeniedHostname(ok("notatrium.dev"), denied))
    assert.isTrue(isDeniedHostname(ok("shop.xn--bcher-kva.example"), denied))
    assert.isTrue(isDeniedHostname(ok("printer.local"), []))
    assert.isTrue(isDeniedHostname(ok("db.internal"), []))
    assert.isTrue(isDeniedHostname(ok("app.localhost"), []))
    assert.isFalse(isDeniedHostname(ok("app.example.com"), []))
  })

  it("refuses A-labels that are not valid punycode or do not round-trip (IDNA 2008 / UTS #46)", () => {
    for (const name of ["xn--zz.example", "xn--deny.test", "xn--a.com", "xn--u-ccb.com", "shop.xn--zz"]) {
      assert.include(refused(name), "not a valid internationalized label", name)
    }
    // Reserved hyphen forms other than xn--, and percent-escapes the URL parser would decode.
    assert.include(refused("xn--ls8h.la"), "letters, digits and hyphens")
    assert.include(refused("ab--c.example"), "reserved label form")
    assert.include(refused("%61pp.example"), "without a scheme")
    assert.strictEqual(ok("XN--BCHER-KVA.example"), "xn--bcher-kva.example")
    assert.strictEqual(ok("xn--80akhbyknj4f.xn--p1ai"), "xn--80akhbyknj4f.xn--p1ai")
  })

  it("gives the Unicode form of a stored hostname", () => {
    assert.strictEqual(hostnameToUnicode(ok("shop.xn--bcher-kva.example")), "shop.bücher.example")
    assert.strictEqual(hostnameToUnicode(ok("例え.テスト")), "例え.テスト")
    assert.strictEqual(hostnameToUnicode(ok("app.example.com")), "app.example.com")
    // A label stored before A-labels were validated is shown as stored.
    assert.strictEqual(hostnameToUnicode("xn--zz.example"), "xn--zz.example")
  })

  it("denies look-alikes of denied names by their confusable skeleton, typed or as punycode", () => {
    const denied = ["atrium.dev", "Bücher.example"]
    // Cyrillic а, і; Greek ο; a whole-Cyrillic "аррӏе" against a denied apple.com.
    assert.isTrue(isDeniedHostname(ok("\u0430trium.dev"), denied))
    assert.isTrue(isDeniedHostname(ok("tenant.atr\u0456um.dev"), denied))
    assert.isTrue(isDeniedHostname(ok(hostnameToUnicode("xn--trium-3ve.dev")), denied))
    assert.isTrue(isDeniedHostname(ok("xn--trium-3ve.dev"), denied))
    assert.isTrue(isDeniedHostname(ok("xn--80ak6aa92e.com"), ["apple.com"]))
    assert.isTrue(isDeniedHostname(ok("printer.l\u03BFcal"), []))
    assert.isTrue(isDeniedHostname(ok("shop.b\u00FCch\u0435r.example"), denied))
    assert.isFalse(isDeniedHostname(ok("\u0430trium.com"), denied))
    assert.isFalse(isDeniedHostname(ok("пример.рф"), denied))
  })
})
