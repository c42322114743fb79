import { assert, describe, it } from "@effect/vitest"
import { Accounts, emailKey, Invitations, normalizeEmail } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { Effect, Option, Ref } from "effect"
import { password, principalOf, signUp } from "../support/identity.ts"

const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))

describe("email normal form", () => {
  it("folds fullwidth forms and case (for comparing), drops invisible characters", () => {
    const same = [
      "ada@example.com",
      " Ada@Example.COM ",
      "ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ",
      "ＡＤＡ@example.com",
      "a\u200Bda@example.com",
      "ada\u200D@exam\u00ADple.com",
      "\uFEFFada@example.com",
      "a\u2060da@ex\u200Cample.com"
    ]
    for (const text of same) assert.deepStrictEqual(Option.map(normalizeEmail(text), emailKey), Option.some("ada@example.com"), JSON.stringify(text))
  })

  it("stores the local part's case as given (RFC 5321) and the domain in lower case; compares without case", () => {
    assert.deepStrictEqual(normalizeEmail(" Ada@Example.COM "), Option.some("Ada@example.com"))
    assert.deepStrictEqual(normalizeEmail("ＡＤＡ@example.com"), Option.some("ADA@example.com"))
    assert.deepStrictEqual(normalizeEmail("ada@example.com"), Option.some("ada@example.com"))
    assert.strictEqual(emailKey("Ada.Lovelace@Example.com"), "ada.lovelace@example.com")
    // Case never hides a lookalike: an upper-case Cyrillic letter among Latin ones is refused like a lower-case one.
    assert.isTrue(Option.isNone(normalizeEmail("\u0410da@example.com")))
  })

  it("refuses mixed-script local parts and labels, and labels made only of Latin lookalikes", () => {
    const refused = [
      "\u0430da@example.com", // Cyrillic а among Latin letters
      "ada@ex\u0430mple.com",
      "\u0430\u0440\u0435@example.com", // "аре": all Cyrillic, all Latin lookalikes
      "ada@\u0430\u0440\u0435.com",
      "\u03BF@example.com", // Greek omicron alone
      "p\u0430yp\u0430l@example.com",
      "a\u0000@x.com",
      "a\uD800@x.com"
    ]
    for (const text of refused) assert.isTrue(Option.isNone(normalizeEmail(text)), JSON.stringify(text))
  })

  it("keeps addresses written wholly in one script, and the East Asian mixes", () => {
    for (const text of ["\u0434\u0438\u043C\u0430@\u043F\u0440\u0438\u043C\u0435\u0440.\u0440\u0444", "δοκιμή@παράδειγμα.δοκιμή", "太郎@example.jp", "たろう2@例え.jp", "o'neil+tag@sub.example.co.uk"]) {
      assert.isTrue(Option.isSome(normalizeEmail(text)), text)
    }
  })
})

describe("lookalike sign-ups", () => {
  it.effect("a fullwidth or zero-width twin of an existing account is email_taken; a Cyrillic homoglyph is refused", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const original = yield* signUp("ada@example.com", "Ada")
      for (const twin of ["ａｄａ@example.com", "a\u200Bda@example.com", "ADA@EXAMPLE.COM", "ada@ｅｘａｍｐｌｅ.com"]) {
        const error = yield* accounts.signUp({ email: twin, password, name: "Mallory" }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "EmailTaken", twin)
      }
      for (const homoglyph of ["\u0430da@example.com", "ada@ex\u0430mple.com"]) {
        const error = yield* accounts.signUp({ email: homoglyph, password, name: "Mallory" }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "InvalidInput", homoglyph)
      }
      assert.strictEqual((yield* state).users.size, 1)
      // Signing in through the normal form reaches the one account.
      const signedIn = yield* accounts.signIn({ email: "ａｄａ@example.com", password })
      assert.strictEqual(signedIn.user.id, original.user.id)
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("an invitation to a lookalike address is stored in the normal form, or refused", () =>
    Effect.gen(function*() {
      const owner = yield* signUp("owner@example.com", "Owner")
      const principal = yield* principalOf(owner.session)
      const invitations = yield* Invitations
      const invited = yield* invitations.create(principal, { email: "ｂｏｂ@example.com", role: "member" })
      assert.strictEqual(invited.invitation.email, "bob@example.com")
      const refused = yield* invitations.create(principal, { email: "b\u043Eb@example.com", role: "member" }).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "InvalidInput")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
