import { Effect, Option, Redacted, Schema } from "effect"
import { crc32, encodeBase62, encodeBase62Int } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"

/** Which environment a key belongs to; it is part of the key text (`sk_live_…`, `sk_test_…`). */
export const ApiKeyEnvironment = Schema.Literals(["live", "test"])
export type ApiKeyEnvironment = typeof ApiKeyEnvironment.Type

// 24 random bytes = 192 bits, 33 base62 characters; 6 more carry a CRC-32 of everything before them.
const secretBytes = 24
const secretChars = 33
const checksumChars = 6
const keyPattern = /^sk_(live|test)_([0-9A-Za-z]{33})([0-9A-Za-z]{6})$/

/** Characters of the key kept for display (`sk_live_AbC12345`), far too few to guess the rest. */
const displayChars = "sk_live_".length + 8

const checksumOf = (body: string) => encodeBase62Int(crc32(body), checksumChars)

/** A freshly minted key: the plaintext (shown once) and what may be stored about it. */
export interface MintedApiKey {
  readonly plaintext: Redacted.Redacted<string>
  readonly environment: ApiKeyEnvironment
  readonly displayPrefix: string
}

/** Mints `sk_<env>_<33 base62 random chars><6 char checksum>`. */
export const mintApiKey = Effect.fn("mintApiKey")(function*(environment: ApiKeyEnvironment) {
  const random = yield* SecureRandom
  const bytes = yield* random.bytes(secretBytes)
  const body = `sk_${environment}_${encodeBase62(bytes, secretChars)}`
  const text = body + checksumOf(body)
  const minted: MintedApiKey = {
    plaintext: Redacted.make(text, { label: "ApiKey" }),
    environment,
    displayPrefix: text.slice(0, displayChars)
  }
  return minted
})

/** Offline check of a presented key's shape and checksum: no lookup for noise or made-up keys. */
export const parseApiKey = (presented: Redacted.Redacted<string>): Option.Option<ApiKeyEnvironment> => {
  const text = Redacted.value(presented)
  const match = keyPattern.exec(text)
  if (match === null) return Option.none()
  const [, environment, secret, checksum] = match
  const body = `sk_${environment}_${secret}`
  return checksumOf(body) === checksum && (environment === "live" || environment === "test")
    ? Option.some(environment)
    : Option.none()
}

/** Whether some text looks like one of our keys (used to refuse keys in URLs, and by secret scanners). */
export const looksLikeApiKey = (text: string): boolean => /sk_(?:live|test)_[0-9A-Za-z]{20,}/.test(text)

