import { Effect, Redacted } from "effect"
import { importPKCS8, SignJWT } from "jose"

/** A signing key that could not be read: a configuration error, reported without the key. */
export class SigningKeyInvalid {
  readonly _tag = "SigningKeyInvalid"
}

/**
 * Signs a compact JWT with a PKCS#8 PEM key through `jose`: ES256 (P-256) or RS256. The key is opened only here and
 * never leaves as text.
 */
export const signJwt = (
  algorithm: "ES256" | "RS256",
  privateKeyPem: Redacted.Redacted<string>,
  header: Record<string, unknown>,
  claims: Record<string, unknown>
): Effect.Effect<string, SigningKeyInvalid> =>
  Effect.tryPromise({
    try: async () =>
      new SignJWT(claims).setProtectedHeader({ ...header, alg: algorithm, typ: "JWT" }).sign(await importPKCS8(Redacted.value(privateKeyPem), algorithm)),
    catch: () => new SigningKeyInvalid()
  })
