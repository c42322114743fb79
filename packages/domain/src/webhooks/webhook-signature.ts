import { Context, Effect, Layer, Redacted } from "effect"
import { Mac, SecureRandom as CryptoRandom } from "effect/crypto"
import { SecureRandom } from "../shared/index.ts"

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
const encoder = new TextEncoder()

/** Mints a Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const mintSigningSecret = Effect.fn("mintSigningSecret")(function*() {
  const bytes = yield* (yield* SecureRandom).bytes(32)
  return Redacted.make(`whsec_${toBase64(bytes)}`, { label: "WebhookSecret" })
})

/** The key bytes of a `whsec_…` secret (the part after the prefix is base64). */
const keyBytes = (secret: Redacted.Redacted<string>) => {
  const text = Redacted.value(secret)
  const encoded = text.startsWith("whsec_") ? text.slice("whsec_".length) : text
  return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0))
}

/** A signing secret made ready to sign: it keeps its key to itself, so the secret text need not stay around. */
export interface SigningKey {
  /** The base64 HMAC-SHA256 of `content`. */
  readonly sign: (content: string) => Effect.Effect<string>
}

/** Port: turns HMAC-SHA256 key bytes into a `SigningKey`. */
export interface WebhookSignerShape {
  readonly importKey: (key: Uint8Array<ArrayBuffer>) => Effect.Effect<SigningKey>
}

// `effect/crypto`'s HMAC on Web Crypto; its key generation (unused here) wants randomness.
const webCryptoMac = Mac.layerWebCrypto.pipe(Layer.provide(CryptoRandom.layerWebCrypto))

/** `effect/crypto`'s HMAC-SHA256 on Web Crypto (asynchronous), for runtimes without a faster signer. */
export const webCryptoSigner: WebhookSignerShape = {
  importKey: (bytes) =>
    Effect.gen(function*() {
      const mac = yield* Mac.Mac
      const key = yield* Mac.key(Mac.hmacSha256, bytes)
      const signingKey: SigningKey = {
        sign: (content) => mac.sign(key, encoder.encode(content)).pipe(Effect.map(toBase64), Effect.orDie)
      }
      return signingKey
    }).pipe(Effect.orDie, Effect.provide(webCryptoMac))
}

/** The signer of webhook attempts; Web Crypto unless an adapter provides a faster one (the Node transport does). */
export class WebhookSigner extends Context.Reference<WebhookSignerShape>("@atrium/domain/WebhookSigner", { defaultValue: () => webCryptoSigner }) {}

/** Imports a `whsec_…` secret once, for every attempt that signs with it (a worker pass opens each secret once). */
export const importSigningKey = (secret: Redacted.Redacted<string>): Effect.Effect<SigningKey> =>
  Effect.service(WebhookSigner).pipe(Effect.flatMap((signer) => signer.importKey(keyBytes(secret))))

/**
 * The `webhook-signature` header value: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for each
 * key, space-separated (several during a rotation's grace period).
 */
export const signWebhookWith = (
  keys: ReadonlyArray<SigningKey>,
  message: { readonly id: string; readonly timestamp: number; readonly body: string }
): Effect.Effect<string> => {
  const content = `${message.id}.${message.timestamp}.${message.body}`
  return Effect.forEach(keys, (key) => key.sign(content)).pipe(Effect.map((signatures) => signatures.map((s) => `v1,${s}`).join(" ")))
}

/** `signWebhookWith` for secrets not yet imported (one-off signatures). */
export const signWebhook = Effect.fn("signWebhook")(function*(
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
  message: { readonly id: string; readonly timestamp: number; readonly body: string }
) {
  return yield* signWebhookWith(yield* Effect.forEach(secrets, importSigningKey), message)
})
