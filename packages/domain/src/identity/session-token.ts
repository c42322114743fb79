import { Effect, Redacted } from "effect"
import { encodeBase62, SecretHasher } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"

// `at_`/`rt_`/`it_`/`ev_`/`pr_` can never be mistaken for `sk_live_`/`sk_test_` keys, by people, by scanners, or by the parsers.
const kinds: { readonly [K in OpaqueTokenKind]: { readonly prefix: string; readonly bytes: number; readonly chars: number } } = {
  access: { prefix: "at_", bytes: 24, chars: 33 },
  refresh: { prefix: "rt_", bytes: 32, chars: 43 },
  invitation: { prefix: "it_", bytes: 24, chars: 33 },
  verification: { prefix: "ev_", bytes: 24, chars: 33 },
  reset: { prefix: "pr_", bytes: 24, chars: 33 }
}

/** The kinds of opaque bearer token Atrium mints besides API keys. */
export type OpaqueTokenKind = "access" | "refresh" | "invitation" | "verification" | "reset"

/** Mints an opaque token: `rt_` + 43 base62 (256 bits); `at_`, `it_`, `ev_` (email verification), `pr_` (password reset) + 33 base62 (192 bits). */
export const mintToken = Effect.fn("mintToken")(function*(kind: OpaqueTokenKind) {
  const spec = kinds[kind]
  const bytes = yield* (yield* SecureRandom).bytes(spec.bytes)
  return Redacted.make(`${spec.prefix}${encodeBase62(bytes, spec.chars)}`, { label: `${kind} token` })
})

/**
 * Derives a token of `kind` from a refresh token and a random salt with the server's keyed digest: the same inputs give
 * the same token, so a just-rotated refresh token can be answered with the very pair its rotation issued, while no
 * token is stored. The salt is fresh per rotation, so one old token never yields the chain of later ones.
 */
export const deriveToken = Effect.fn("deriveToken")(function*(kind: OpaqueTokenKind, from: Redacted.Redacted<string>, salt: string) {
  const spec = kinds[kind]
  const hex = yield* (yield* SecretHasher).digest(Redacted.make(`atrium-derive:${kind}:${salt}:${Redacted.value(from)}`))
  const bytes = Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16)).subarray(0, spec.bytes)
  return Redacted.make(`${spec.prefix}${encodeBase62(bytes, spec.chars)}`, { label: `${kind} token` })
})

/** A fresh rotation salt: 16 random bytes (not a secret on its own; useless without the token it salts). */
export const mintRotationSalt = Effect.fn("mintRotationSalt")(function*() {
  return encodeBase62(yield* (yield* SecureRandom).bytes(16), 22)
})

/** Whether a presented token has the shape of `kind`; anything else is refused without a lookup. */
export const hasTokenShape = (kind: OpaqueTokenKind, presented: Redacted.Redacted<string>): boolean => {
  const spec = kinds[kind]
  const text = Redacted.value(presented)
  return text.length === spec.prefix.length + spec.chars && text.startsWith(spec.prefix) &&
    /^[0-9A-Za-z]+$/.test(text.slice(spec.prefix.length))
}
