import { Effect, Redacted } from "effect"
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

/** A signing secret made ready to sign: a non-extractable HMAC-SHA256 key, so the secret text need not stay around. */
export interface SigningKey {
  readonly key: CryptoKey
}

/** Imports a `whsec_…` secret once, for every attempt that signs with it (a worker pass opens each secret once). */
export const importSigningKey = (secret: Redacted.Redacted<string>): Effect.Effect<SigningKey> =>
  Effect.promise(() => globalThis.crypto.subtle.importKey("raw", keyBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])).pipe(
    Effect.map((key) => ({ key }))
  )

/**
 * The `webhook-signature` header value: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for each
 * key, space-separated (several during a rotation's grace period).
 */
export const signWebhookWith = (
  keys: ReadonlyArray<SigningKey>,
  message: { readonly id: string; readonly timestamp: number; readonly body: string }
): Effect.Effect<string> =>
  Effect.promise(async () => {
    const content = encoder.encode(`${message.id}.${message.timestamp}.${message.body}`)
    const signatures = await Promise.all(keys.map(async ({ key }) =>
      `v1,${toBase64(new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, content)))}`
    ))
    return signatures.join(" ")
  })

/** `signWebhookWith` for secrets not yet imported (one-off signatures). */
export const signWebhook = Effect.fn("signWebhook")(function*(
  secrets: ReadonlyArray<Redacted.Redacted<string>>,
  message: { readonly id: string; readonly timestamp: number; readonly body: string }
) {
  return yield* signWebhookWith(yield* Effect.forEach(secrets, importSigningKey), message)
})
