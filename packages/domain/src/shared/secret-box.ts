import { Context, Effect, Layer, Redacted } from "effect"

/** Port: seals secrets the server must read back later (webhook signing secrets, store and push tokens, mail links), so a database dump alone reveals nothing. */
export class SecretBox extends Context.Service<SecretBox, {
  /** AES-256-GCM under the server key: `v1.<base64 iv>.<base64 ciphertext+tag>`. */
  readonly seal: (secret: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Opens a sealed value; a value sealed under another key is a defect (wrong server key), never a silent empty secret. */
  readonly open: (sealed: string) => Effect.Effect<Redacted.Redacted<string>>
}>()("@atrium/domain/SecretBox") {
  /** A box under a 32-byte key given as base64 (Web Crypto, no import). */
  static readonly layerWith = (key: Redacted.Redacted<string>) =>
    Layer.effect(
      SecretBox,
      Effect.gen(function*() {
        const raw = Uint8Array.from(atob(Redacted.value(key)), (c) => c.charCodeAt(0))
        if (raw.length !== 32) return yield* Effect.die(new Error("the secret key must be 32 bytes, base64-encoded"))
        const cryptoKey = yield* Effect.promise(() => globalThis.crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]))
        const encoder = new TextEncoder()
        const decoder = new TextDecoder()
        const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes))
        const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0))
        return SecretBox.of({
          seal: (secret) =>
            Effect.promise(async () => {
              const iv = globalThis.crypto.getRandomValues(new Uint8Array(12))
              const sealed = await globalThis.crypto.subtle.encrypt({ name: "AES-GCM", iv }, cryptoKey, encoder.encode(Redacted.value(secret)))
              return `v1.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`
            }),
          open: (sealed) =>
            Effect.promise(async () => {
              const [version, iv, data] = sealed.split(".")
              if (version !== "v1" || iv === undefined || data === undefined) return Promise.reject(new Error("unknown sealed secret format"))
              const opened = await globalThis.crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) }, cryptoKey, fromBase64(data))
              return Redacted.make(decoder.decode(opened), { label: "sealed secret" })
            })
        })
      })
    )

  /** A box under a fresh random key, for tests and in-memory use. */
  static readonly layerMemory = Layer.unwrap(
    Effect.sync(() => SecretBox.layerWith(Redacted.make(btoa(String.fromCharCode(...globalThis.crypto.getRandomValues(new Uint8Array(32)))))))
  )
}
