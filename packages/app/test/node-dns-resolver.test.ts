import {
  CustomDomains,
  DomainRepository,
  Entitlements,
  Feature,
  hostnameToUnicode,
  normalizeHostname,
  punycodeDecode,
  SessionId,
  SessionPrincipal,
  UserId,
  Workspaces
} from "@atrium/domain"
import { Domain, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Option, Result, Schema } from "effect"
import { domainToASCII, domainToUnicode } from "node:url"
import { NodeDnsResolver } from "../src/node-dns-resolver.ts"
import { type DnsResponder, dnsResponder } from "./dns-responder.ts"

// The domain over memory ports, asking a real DNS server on loopback through the node:dns adapter.
const domainAsking = (responder: DnsResponder) =>
  Domain.layerMemoryWith({ replace: NodeDnsResolver.layerWith({ servers: [responder.server], timeout: "300 millis", tries: 1 }) })

/** Runs `body` against a fresh responder and a domain that asks it. */
const withDns = <A, E>(body: (responder: DnsResponder) => Effect.Effect<A, E, CustomDomains | DomainRepository | Workspaces | Entitlements>) =>
  Effect.gen(function*() {
    const responder = yield* dnsResponder
    return yield* body(responder).pipe(Effect.provide(domainAsking(responder)))
  })

const addDomain = (hostname: string) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("domains.custom"), source: "plan" })
    const admin = new SessionPrincipal({ sessionId: SessionId.make("ses_dns"), userId: UserId.make("usr_dns"), workspaceId: workspace.id, role: "admin" })
    return yield* (yield* CustomDomains).create(admin, { hostname })
  })

/** What the worker does for one due domain. */
const checkNow = (domain: { readonly workspaceId: SessionPrincipal["workspaceId"]; readonly id: Parameters<DomainRepository["Service"]["findById"]>[1] }) =>
  Effect.gen(function*() {
    const stored = Option.getOrThrow(yield* (yield* DomainRepository).findById(domain.workspaceId, domain.id))
    return Option.getOrThrow(yield* (yield* CustomDomains).check(stored))
  })

const observedOf = (domain: { readonly observed: Option.Option<{ readonly txt: ReadonlyArray<string>; readonly error: Option.Option<string>; readonly cname: Option.Option<string> }> }) =>
  Option.getOrThrow(domain.observed)

describe("node:dns resolver against a DNS server on loopback", () => {
  it.live("a matching TXT record verifies the domain", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("app.example.com")
        dns.set(domain.challengeName, { _tag: "Records", txt: [[domain.proofValue]] })
        const checked = yield* checkNow(domain)
        assert.strictEqual(checked.status, "verified")
        assert.deepStrictEqual(observedOf(checked).txt, [domain.proofValue])
        assert.deepStrictEqual(observedOf(checked).error, Option.none())
        assert.deepInclude(dns.questions, { name: "_atrium-challenge.app.example.com", type: 16 })
      })))

  it.live("a mismatching value keeps it pending; an absent name (NXDOMAIN) is an answer, not an error", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("app.example.com")
        dns.set(domain.challengeName, { _tag: "Records", txt: [["atrium-verify=00000000000000000000000000000000"]] })
        const mismatched = yield* checkNow(domain)
        assert.strictEqual(mismatched.status, "pending_verification")
        assert.deepStrictEqual(observedOf(mismatched).txt, ["atrium-verify=00000000000000000000000000000000"])
        const other = yield* addDomain("nothing-here.example.com")
        const absent = yield* checkNow(other)
        assert.strictEqual(absent.status, "pending_verification")
        assert.deepStrictEqual(observedOf(absent).txt, [])
        assert.deepStrictEqual(observedOf(absent).error, Option.none())
      })))

  it.live("several records, and a long value split into strings, are read whole", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("app.example.com")
        const [head, tail] = [domain.proofValue.slice(0, 20), domain.proofValue.slice(20)]
        dns.set(domain.challengeName, { _tag: "Records", txt: [["v=spf1 -all"], [head, tail], ["google-site-verification=abc"]] })
        const checked = yield* checkNow(domain)
        assert.strictEqual(checked.status, "verified")
        assert.sameMembers([...observedOf(checked).txt], ["v=spf1 -all", domain.proofValue, "google-site-verification=abc"])
      })))

  it.live("case and trailing dots: the typed name, the served name, the value and the CNAME target", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("App.Example.COM.")
        assert.strictEqual(domain.hostname, "app.example.com")
        dns.set("_ATRIUM-CHALLENGE.APP.EXAMPLE.COM.", { _tag: "Records", txt: [[domain.proofValue.toUpperCase()]] })
        dns.set("APP.EXAMPLE.COM", { _tag: "Records", cname: "Edge.Example.NET." })
        const checked = yield* checkNow(domain)
        assert.strictEqual(checked.status, "verified")
        assert.deepStrictEqual(observedOf(checked).cname, Option.some("edge.example.net"))
        // The server is asked the normalised name, never with a trailing dot or the typed case.
        assert.isTrue(dns.questions.every((q) => q.name === q.name.toLowerCase() && !q.name.endsWith(".")))
      })))

  it.live("punycode hostnames are asked for in their ASCII form", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("Bücher.Example")
        assert.strictEqual(domain.hostname, "xn--bcher-kva.example")
        dns.set("_atrium-challenge.xn--bcher-kva.example", { _tag: "Records", txt: [[domain.proofValue]] })
        assert.strictEqual((yield* checkNow(domain)).status, "verified")
        assert.deepInclude(dns.questions, { name: "_atrium-challenge.xn--bcher-kva.example", type: 16 })
      })))

  it.live("SERVFAIL keeps a verified domain verified and records the error", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("app.example.com")
        dns.set(domain.challengeName, { _tag: "Records", txt: [[domain.proofValue]] })
        assert.strictEqual((yield* checkNow(domain)).status, "verified")
        dns.set(domain.challengeName, { _tag: "ServFail" })
        const checked = yield* checkNow(domain)
        assert.strictEqual(checked.status, "verified")
        assert.isTrue(Option.isNone(checked.proofMissingSince))
        assert.match(Option.getOrThrow(observedOf(checked).error), /^servfail: ESERVFAIL/)
      })))

  it.live("a server that never answers times out and keeps a verified domain verified", () =>
    withDns((dns) =>
      Effect.gen(function*() {
        const domain = yield* addDomain("app.example.com")
        dns.set(domain.challengeName, { _tag: "Records", txt: [[domain.proofValue]] })
        assert.strictEqual((yield* checkNow(domain)).status, "verified")
        dns.set(domain.challengeName, { _tag: "Silent" })
        const checked = yield* checkNow(domain)
        assert.strictEqual(checked.status, "verified")
        assert.match(Option.getOrThrow(observedOf(checked).error), /^timeout: ETIMEOUT/)
        // Whereas a real answer without the proof starts the grace.
        dns.set(domain.challengeName, { _tag: "Records", txt: [] })
        assert.isTrue(Option.isSome((yield* checkNow(domain)).proofMissingSince))
      })))
})

describe("the domain's pure IDNA conversion", () => {
  it("agrees with node's domainToASCII wherever the domain accepts a name", () => {
    const names = [
      "Bücher.example", "MÜNCHEN.de", "straße.de", "例え.テスト", "ｅｘａｍｐｌｅ。ｃｏｍ", "пример.рф", "παράδειγμα.δοκιμή",
      "مثال.إختبار", "उदाहरण.परीक्षा", "app.Example.COM.", "xn--bcher-kva.example", "café.fr", "İstanbul.tr", "ǅemal.example"
    ]
    for (const name of names) {
      const ours = normalizeHostname(name)
      if (Result.isFailure(ours)) return assert.fail(`${name}: ${ours.failure}`)
      assert.strictEqual(ours.success, domainToASCII(name).replace(/\.$/, ""), name)
    }
  })

  // Letters of several scripts, marks, digits, hyphens, sharp s, an emoji, a fullwidth letter and a full stop.
  const char = Arbitrary.schema(Schema.Literals(["a", "z", "0", "-", "ü", "ß", "д", "ж", "π", "例", "テ", "ع", "\u0301", "😀", "Ａ", "ı", "é", "\u3002"]))
  const label = Arbitrary.array(char, { minLength: 1, maxLength: 12 }).pipe(Arbitrary.map((chars) => chars.join("")))

  it.prop("decodes every A-label as node's domainToUnicode does, and encodes as its domainToASCII", [label], ([text]) => {
    const ascii = domainToASCII(`${text}.example`)
    if (ascii === "") return
    for (const part of ascii.split(".").filter((part) => part.startsWith("xn--"))) {
      assert.deepStrictEqual(punycodeDecode(part.slice(4)), Option.some(domainToUnicode(part)), part)
    }
    const ours = normalizeHostname(`${text}.example`)
    if (Result.isSuccess(ours)) {
      assert.strictEqual(ours.success, ascii.replace(/\.$/, ""), text)
      assert.strictEqual(hostnameToUnicode(ours.success), domainToUnicode(ascii).replace(/\.$/, ""), text)
    }
  })
})

describe("punycode and IDNA over many scripts, held to node's url.domainToASCII", () => {
  // Code points of many scripts: ASCII letters and digits, Latin-1 and Latin Extended, Greek, Cyrillic, Arabic,
  // Devanagari, CJK, Hangul, combining marks, fullwidth forms and emoji; labels of 1–20 of them.
  const ranges: ReadonlyArray<readonly [number, number]> = [
    [0x30, 0x39], [0x61, 0x7a], [0x41, 0x5a], [0x2d, 0x2d], [0xc0, 0x24f], [0x300, 0x36f], [0x391, 0x3c9], [0x410, 0x44f],
    [0x621, 0x64a], [0x905, 0x939], [0x4e00, 0x4fff], [0xac00, 0xacff], [0xff21, 0xff5a], [0x1f600, 0x1f64f]
  ]
  const codePoint = Arbitrary.all([
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: ranges.length - 1 }))),
    Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffff })))
  ]).pipe(Arbitrary.map(([range, offset]) => {
    const [low, high] = ranges[range] ?? [0x61, 0x7a]
    return String.fromCodePoint(low + (offset % (high - low + 1)))
  }))
  const label = Arbitrary.array(codePoint, { minLength: 1, maxLength: 20 }).pipe(Arbitrary.map((chars) => chars.join("")))

  it.prop("every A-label node makes decodes back to node's Unicode, and an accepted name is node's ASCII", [label, label], ([first, second]) => {
    const name = `${first}.${second}.example`
    const ascii = domainToASCII(name)
    for (const part of ascii.split(".").filter((part) => part.startsWith("xn--"))) {
      assert.deepStrictEqual(punycodeDecode(part.slice(4)), Option.some(domainToUnicode(part)), part)
    }
    const ours = normalizeHostname(name)
    if (Result.isSuccess(ours)) {
      assert.strictEqual(ours.success, ascii, name)
      assert.strictEqual(hostnameToUnicode(ours.success), domainToUnicode(ascii), name)
    }
  })

  it.prop("decoding any ASCII text answers a label or none, never throws", [Schema.String], ([text]) => {
    const ascii = text.replace(/[^\x20-\x7e]/g, "a").toLowerCase()
    const decoded = punycodeDecode(ascii)
    if (Option.isSome(decoded)) assert.isTrue(decoded.value.isWellFormed())
  })
})
