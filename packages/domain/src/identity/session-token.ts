import { Effect, Redacted } from "effect"
import { encodeBase62 } from "../shared/index.ts"
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

/** Whether a presented token has the shape of `kind`; anything else is refused without a lookup. */
export const hasTokenShape = (kind: OpaqueTokenKind, presented: Redacted.Redacted<string>): boolean => {
  const spec = kinds[kind]
  const text = Redacted.value(presented)
  return text.length === spec.prefix.length + spec.chars && text.startsWith(spec.prefix) &&
    /^[0-9A-Za-z]+$/.test(text.slice(spec.prefix.length))
}
