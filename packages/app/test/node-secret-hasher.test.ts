import { assert, it } from "@effect/vitest"
import { Primitives, SecretHasher } from "@atrium/domain"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { Digest, Mac, SecureRandom } from "effect/crypto"
import { NodePrimitives, NodeSecretHasher } from "../src/node-secret-hasher.ts"

const secrets = [
  "",
  "sk_live_4xQ9aZ1b7HkP0mVcT3sLeR4xQ9aZ1b7HkP0mVcT3sLeRab",
  "rt_" + "x".repeat(200),
  "ünïcödé ✓ 🔑"
]

// Short, exactly one SHA-256 block, longer than a block (hashed first), and non-ASCII.
const peppers = [
  Option.none(),
  Option.some("pepper"),
  Option.some("p".repeat(64)),
  Option.some("q".repeat(65)),
  Option.some("a much longer pepper than sixty-four bytes, which HMAC hashes down to thirty-two first"),
  Option.some("pfeffer-ß-😀")
]

const digestsWith = (layer: Layer.Layer<SecretHasher>) =>
  Effect.gen(function*() {
    const hasher = yield* SecretHasher
    return yield* Effect.forEach(secrets, (secret) => hasher.digest(Redacted.make(secret)))
  }).pipe(Effect.provide(layer))

// The domain's own hasher, on effect/crypto's Web Crypto layers.
const webCrypto = (pepper: Option.Option<Redacted.Redacted<string>>) =>
  SecretHasher.layer(pepper).pipe(Layer.provide(Layer.mergeAll(Digest.layerWebCrypto, Mac.layerWebCrypto.pipe(Layer.provide(SecureRandom.layerWebCrypto)))))

it.effect("produces exactly the digests of the domain's Web Crypto hasher, with and without a pepper", () =>
  Effect.gen(function*() {
    for (const pepper of peppers) {
      const redacted = Option.map(pepper, (p) => Redacted.make(p))
      const expected = yield* digestsWith(webCrypto(redacted))
      const actual = yield* digestsWith(NodeSecretHasher(redacted))
      assert.deepStrictEqual(actual, expected, `pepper ${Option.getOrElse(pepper, () => "(none)")}`)
      for (const digest of actual) assert.match(digest, /^[0-9a-f]{64}$/)
    }
  }))

it.effect("gives each secret its own digest, stable across calls and instances", () =>
  Effect.gen(function*() {
    const layer = NodeSecretHasher(Option.some(Redacted.make("pepper")))
    const first = yield* digestsWith(layer)
    const second = yield* digestsWith(layer)
    assert.deepStrictEqual(first, second)
    assert.strictEqual(new Set(first).size, first.length)
    const unpeppered = yield* digestsWith(NodeSecretHasher(Option.none()))
    for (let i = 0; i < first.length; i++) assert.notStrictEqual(first[i], unpeppered[i])
  }))

it.effect("refuses an empty pepper, on either crypto", () =>
  Effect.gen(function*() {
    const empty = Option.some(Redacted.make(""))
    assert.isTrue(Exit.isFailure(yield* Effect.exit(digestsWith(NodeSecretHasher(empty)))))
    assert.isTrue(Exit.isFailure(yield* Effect.exit(digestsWith(webCrypto(empty)))))
  }))

// RFC 4231, test case 2: the two cryptos agreeing is not enough, they must agree with HMAC-SHA-256 itself.
it.effect("answers RFC 4231's HMAC-SHA-256 vector under a pepper and SHA-256's under none", () =>
  Effect.gen(function*() {
    const hmac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    for (const layer of [NodeSecretHasher(Option.some(Redacted.make("Jefe"))), webCrypto(Option.some(Redacted.make("Jefe")))]) {
      const hasher = yield* Effect.provide(SecretHasher, layer)
      assert.strictEqual(yield* hasher.digest(Redacted.make("what do ya want for nothing?")), hmac)
    }
    const plain = yield* Effect.provide(SecretHasher, NodeSecretHasher(Option.none()))
    assert.strictEqual(yield* plain.digest(Redacted.make("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }))

it.effect("NodePrimitives' Digest answers the SHA-256 of the domain's Web Crypto Primitives (keyed AI submissions store it for 24 h)", () =>
  Effect.gen(function*() {
    const hexWith = (layer: Layer.Layer<Digest.Digest>) =>
      Effect.gen(function*() {
        const digest = yield* Digest.Digest
        return yield* Effect.forEach(secrets, (text) => digest.digestHex(Digest.sha256, new TextEncoder().encode(text)))
      }).pipe(Effect.provide(layer))
    const actual = yield* hexWith(NodePrimitives())
    assert.deepStrictEqual(actual, yield* hexWith(Primitives.layer))
    assert.strictEqual(actual[0], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  }))
