import { NotificationInbox, Purchases, StoreNotificationId } from "@atrium/domain"
import { Domain, MemoryStore } from "@atrium/domain/testing"
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Effect, Layer, Option, Ref } from "effect"
import { appleRootCaG3 } from "../../src/outbound/app-store/apple-root-ca-g3.ts"
import { AppleSignatures, readCertificates, verifyAppleJws } from "../../src/outbound/app-store/apple-jws.ts"
import { AppStoreServerApiFake, FakeStoreApis, GooglePushTokensFake, PlayDeveloperApiFake, storesOverFakes } from "./fake-store-apis.ts"
import { issue, signJws, testApplePki } from "./test-certificates.ts"

const pki = testApplePki()
const roots = [pki.root.cert]
const now = new Date()
const bundleId = "com.example.atrium"

const notification = (environment: string, uuid = "uuid-1") => ({
  notificationType: "TEST",
  notificationUUID: uuid,
  signedDate: now.getTime(),
  data: { bundleId, environment }
})

describe("App Store JWS verification (node:crypto, against a test CA made here)", () => {
  it("accepts a good chain and returns the payload", () => {
    const result = verifyAppleJws(pki.sign({ hello: "world" }), roots, now)
    assert.deepStrictEqual(result, { ok: true, payload: { hello: "world" } })
  })

  it("refuses a chain that leads to another root", () => {
    const other = testApplePki()
    assert.deepStrictEqual(verifyAppleJws(other.sign({}), roots, now), { ok: false, reason: "untrusted root" })
  })

  it("refuses a leaf or an intermediate without Apple's marker OID", () => {
    const plainLeaf = issue({ subject: "No marker", issuer: pki.intermediate })
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [plainLeaf, pki.intermediate, pki.root], plainLeaf.key), roots, now), {
      ok: false,
      reason: "leaf marker"
    })
    const plainIntermediate = issue({ subject: "Plain CA", issuer: pki.root, ca: true })
    const leaf = issue({ subject: "Leaf", issuer: plainIntermediate, markers: ["1.2.840.113635.100.6.11.1"] })
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [leaf, plainIntermediate, pki.root], leaf.key), roots, now), {
      ok: false,
      reason: "intermediate marker"
    })
  })

  it("refuses a chain of the wrong length", () => {
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [pki.leaf, pki.intermediate], pki.leaf.key), roots, now), {
      ok: false,
      reason: "certificate chain length"
    })
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [pki.leaf, pki.intermediate, pki.root, pki.root], pki.leaf.key), roots, now), {
      ok: false,
      reason: "certificate chain length"
    })
  })

  it("refuses an expired certificate", () => {
    const expired = issue({
      subject: "Expired",
      issuer: pki.intermediate,
      markers: ["1.2.840.113635.100.6.11.1"],
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000)
    })
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [expired, pki.intermediate, pki.root], expired.key), roots, now), {
      ok: false,
      reason: "certificate not valid at this time"
    })
  })

  it("refuses a signature by another key, a tampered payload and another algorithm", () => {
    const stranger = issue({ subject: "Stranger" })
    assert.deepStrictEqual(verifyAppleJws(signJws({}, [pki.leaf, pki.intermediate, pki.root], stranger.key), roots, now), { ok: false, reason: "signature" })
    const [header, , signature] = pki.sign({ amount: 1 }).split(".")
    const forged = `${header}.${Buffer.from(JSON.stringify({ amount: 1000 })).toString("base64url")}.${signature}`
    assert.deepStrictEqual(verifyAppleJws(forged, roots, now), { ok: false, reason: "signature" })
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.e30.`
    assert.deepStrictEqual(verifyAppleJws(none, roots, now), { ok: false, reason: "algorithm" })
  })

  it("ships the genuine Apple Root CA - G3 (fingerprint as published)", () => {
    const [root] = readCertificates(appleRootCaG3)
    assert.strictEqual(root?.subject.split("\n")[0], "CN=Apple Root CA - G3")
    assert.strictEqual(createHash("sha256").update(root?.raw ?? Buffer.alloc(0)).digest("hex"), "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
  })
})

// The domain's notification intake over the App Store adapter and the real verifier: bundle and environment after the signature.
const withRealSignatures = (environments: ReadonlyArray<"production" | "sandbox">) => {
  const apple = { bundleId, environments }
  return Domain.layerMemoryWith({ replace: storesOverFakes({ apple }) }).pipe(
    Layer.provideMerge(Layer.mergeAll(AppStoreServerApiFake, PlayDeveloperApiFake, GooglePushTokensFake, AppleSignatures.layer(Option.some(pki.root.cert.toString())))),
    Layer.provideMerge(FakeStoreApis.layer)
  )
}
const production = withRealSignatures(["production"])
const receive = (signedPayload: string) => Effect.flatMap(Purchases, (purchases) => purchases.receive("app_store", { authorization: "", body: { signedPayload } }))

describe("App Store Server Notifications V2 intake", () => {
  it.live("stores a production notification once; refuses sandbox under production config, another bundle, and a bad chain with 401", () =>
    Effect.gen(function*() {
      yield* receive(pki.sign(notification("Production")))
      yield* receive(pki.sign(notification("Production")))
      const sandbox = yield* receive(pki.sign(notification("Sandbox", "uuid-2"))).pipe(Effect.flip)
      assert.deepStrictEqual([sandbox._tag, sandbox.code], ["InvalidSignature", "invalid_signature"])
      const otherBundle = yield* receive(pki.sign({ ...notification("Production", "uuid-3"), data: { bundleId: "com.evil", environment: "Production" } })).pipe(
        Effect.flip
      )
      assert.strictEqual(otherBundle._tag, "InvalidSignature")
      const foreign = yield* receive(testApplePki().sign(notification("Production", "uuid-4"))).pipe(Effect.flip)
      assert.strictEqual(foreign._tag, "InvalidSignature")
      const stored = Array.from((yield* Ref.get((yield* MemoryStore).state)).storeNotifications.values())
      assert.deepStrictEqual(stored.map((n) => n.externalId), ["uuid-1"])
      // Sealed at rest: the raw JWS is not readable in the row.
      assert.isFalse(stored.some((n) => n.sealedBody.includes(pki.sign(notification("Production")).slice(0, 40))))
      const inbox = yield* NotificationInbox
      assert.isTrue(Option.isNone(yield* inbox.findById(StoreNotificationId.make("sn_missing"))))
    }).pipe(Effect.provide(production)))

  it.live("a sandbox payload is accepted when the server is configured for sandbox", () =>
    Effect.gen(function*() {
      yield* receive(pki.sign(notification("Sandbox")))
      assert.strictEqual((yield* Ref.get((yield* MemoryStore).state)).storeNotifications.size, 1)
    }).pipe(Effect.provide(withRealSignatures(["sandbox"]))))
})
