import { Effect, Redacted } from "effect"

const encoder = new TextEncoder()

/** Base64url without padding, as JWS wants it. */
export const base64Url = (bytes: Uint8Array): string =>
  btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "")

const pemBody = (pem: string): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "")), (c) => c.charCodeAt(0))

/** A signing key that could not be read: a configuration error, reported without the key. */
export class SigningKeyInvalid {
  readonly _tag = "SigningKeyInvalid"
}

/**
 * Signs a compact JWT with a PKCS#8 PEM key through Web Crypto (no Node import in an adapter): ES256 (P-256, the
 * raw r‖s signature JWS wants) or RS256. The key is opened only here and never leaves as text.
 */
export const signJwt = (
  algorithm: "ES256" | "RS256",
  privateKeyPem: Redacted.Redacted<string>,
  header: Record<string, unknown>,
  claims: Record<string, unknown>
): Effect.Effect<string, SigningKeyInvalid> =>
  Effect.tryPromise({
    try: async () => {
      const subtle = globalThis.crypto.subtle
      const params = algorithm === "ES256"
        ? { name: "ECDSA", namedCurve: "P-256" }
        : { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }
      const key = await subtle.importKey("pkcs8", pemBody(Redacted.value(privateKeyPem)), params, false, ["sign"])
      const input = `${base64Url(encoder.encode(JSON.stringify({ ...header, alg: algorithm, typ: "JWT" })))}.${base64Url(encoder.encode(JSON.stringify(claims)))}`
      const signature = await subtle.sign(algorithm === "ES256" ? { name: "ECDSA", hash: "SHA-256" } : { name: "RSASSA-PKCS1-v1_5" }, key, encoder.encode(input))
      return `${input}.${base64Url(new Uint8Array(signature))}`
    },
    catch: () => new SigningKeyInvalid()
  })
