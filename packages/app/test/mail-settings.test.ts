import { assert, describe, it } from "@effect/vitest"
import { Option, Redacted } from "effect"
import { mailTransport, parseSender } from "../src/mail/mail-settings.ts"

describe("SMTP details", () => {
  it("reads ATRIUM_MAIL_FROM as one address with an optional display name", () => {
    assert.deepStrictEqual(parseSender("Atrium <no-reply@example.com>"), { name: "Atrium", address: "no-reply@example.com" })
    assert.deepStrictEqual(parseSender("\"Atrium, Inc.\" <no-reply@example.com>"), { name: "Atrium, Inc.", address: "no-reply@example.com" })
    assert.deepStrictEqual(parseSender("no-reply@example.com"), { name: "", address: "no-reply@example.com" })
    for (const bad of ["a@x.test, b@x.test", "no address", "", "Atrium <>"]) assert.isUndefined(parseSender(bad))
  })

  it("reads ATRIUM_MAIL_URL: STARTTLS on 587 by default, TLS on 465 for smtps, log otherwise; errors never repeat the URL", () => {
    const url = (text: string) => Option.some(Redacted.make(text))
    const smtp = mailTransport({ url: url("smtp://me%40x.test:p%40ss@mail.example.com"), from: Option.some("Atrium <no-reply@example.com>"), embedded: true })
    assert.isTrue(typeof smtp !== "string" && smtp._tag === "Smtp" && smtp.server.port === 587 && !smtp.server.implicitTls)
    if (typeof smtp !== "string" && smtp._tag === "Smtp") {
      assert.deepStrictEqual(Option.map(smtp.server.auth, (a) => [a.user, Redacted.value(a.password)]), Option.some(["me@x.test", "p@ss"]))
      assert.deepStrictEqual(smtp.from, { name: "Atrium", address: "no-reply@example.com" })
    }
    const tls = mailTransport({ url: url("smtps://mail.example.com"), from: Option.some("no-reply@example.com"), embedded: false })
    assert.isTrue(typeof tls !== "string" && tls._tag === "Smtp" && tls.server.port === 465 && tls.server.implicitTls && Option.isNone(tls.server.auth))
    const v6 = mailTransport({ url: url("smtp://[::1]:2525"), from: Option.some("no-reply@example.com"), embedded: false })
    assert.isTrue(typeof v6 !== "string" && v6._tag === "Smtp" && v6.server.host === "::1" && v6.server.port === 2525)
    assert.deepStrictEqual(mailTransport({ url: Option.none(), from: Option.none(), embedded: true }), { _tag: "Log", showLinks: true })
    assert.deepStrictEqual(mailTransport({ url: Option.none(), from: Option.none(), embedded: false }), { _tag: "Log", showLinks: false })
    assert.deepStrictEqual(mailTransport({ url: url("log:"), from: Option.none(), embedded: false }), { _tag: "Log", showLinks: true })
    for (const bad of ["http://u:hunter22@x", "smtp://u:hunter22@x.example", "::not a url hunter22"]) {
      const error = mailTransport({ url: url(bad), from: Option.none(), embedded: true })
      assert.isString(error)
      assert.notInclude(String(error), "hunter22")
    }
  })
})
