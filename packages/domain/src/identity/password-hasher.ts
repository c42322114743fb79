import { Context, type Effect, Option, Redacted } from "effect"
import { InvalidInput } from "../shared/index.ts"

/**
 * Port: slow, salted password hashing. The production adapter is Argon2id from `node:crypto` (12 MiB, 3 passes,
 * 1 lane) in PHC format; the domain imports only `effect`, so it lives in the app.
 */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** A PHC string (`$argon2id$v=19$m=12288,t=3,p=1$<salt>$<hash>`) with a fresh random salt. */
  readonly hash: (password: Redacted.Redacted<string>) => Effect.Effect<string>
  /** Whether `password` matches `stored`, compared in constant time; a malformed `stored` is `false`. */
  readonly verify: (password: Redacted.Redacted<string>, stored: string) => Effect.Effect<boolean>
  /** Costs what `verify` costs and answers `false`: sign-in runs it for unknown emails so timing tells nothing. */
  readonly verifyDummy: (password: Redacted.Redacted<string>) => Effect.Effect<false>
}>()("@atrium/domain/PasswordHasher") {}

/** Password length bounds, in Unicode code points. */
export const passwordLength: { readonly min: number; readonly max: number } = { min: 10, max: 256 }

/**
 * The password as hashed: NFKC-normalised (so the same password typed on another keyboard matches) and 10–256 code
 * points long; none when out of bounds.
 */
export const normalizePassword = (password: Redacted.Redacted<string>): Option.Option<Redacted.Redacted<string>> => {
  const text = Redacted.value(password).normalize("NFKC")
  const length = Array.from(text).length
  return length >= passwordLength.min && length <= passwordLength.max ? Option.some(Redacted.make(text, { label: "Password" })) : Option.none()
}

/** The refusal of a password outside the length bounds at sign-up. */
export const passwordLengthError = () =>
  new InvalidInput({ detail: `password must be ${passwordLength.min}–${passwordLength.max} characters` })
