import { PasswordHasher } from "@atrium/domain"
import { Effect, Layer, Option, Redacted, Semaphore } from "effect"
import { argon2, randomBytes, timingSafeEqual } from "node:crypto"

/**
 * One of OWASP's equivalent Argon2id configurations: 12 MiB of memory, 3 passes, 1 lane (as strong as its 19 MiB,
 * 2-pass baseline and its 46 MiB, 1-pass one, and the fastest of them here); a 32-byte tag over a 16-byte random salt.
 * Chosen for memory: each hash holds its block only while it runs, since the server fixes malloc's mmap threshold
 * (see start-environment.ts), so two at once add 24 MiB to the server's peak where 46 MiB blocks added 92.
 */
const argon2idParameters: ArgonParameters & { readonly tagLength: number } = { memory: 12_288, passes: 3, parallelism: 1, tagLength: 32 }
const saltLength = 16

// Hashes running at once: each holds its block while it runs; more than the cores would not finish any sooner.
const concurrentHashes = 2

interface ArgonParameters {
  readonly memory: number
  readonly passes: number
  readonly parallelism: number
}

interface PhcHash extends ArgonParameters {
  readonly salt: Buffer
  readonly hash: Buffer
}

// PHC strings carry unpadded standard base64.
const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "")
const phcPattern = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,88})\$([A-Za-z0-9+/]{16,88})$/

/**
 * Parses `$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`. The bounds refuse a tampered row that would make one
 * verification cost gigabytes or minutes; anything else is none, which verifies as `false`.
 */
const parsePhc = (stored: string): Option.Option<PhcHash> => {
  const match = phcPattern.exec(stored)
  if (match === null) return Option.none()
  const [, m, t, p, salt, hash] = match
  const memory = Number(m)
  const passes = Number(t)
  const parallelism = Number(p)
  if (salt === undefined || hash === undefined) return Option.none()
  if (parallelism < 1 || parallelism > 16 || passes < 1 || passes > 10 || memory < 8 * parallelism || memory > 262_144) return Option.none()
  return Option.some({ memory, passes, parallelism, salt: Buffer.from(salt, "base64"), hash: Buffer.from(hash, "base64") })
}

/** Runs Argon2id on libuv's thread pool (size it with `UV_THREADPOOL_SIZE`); the event loop never blocks. */
const derive = (password: string, salt: Buffer, parameters: ArgonParameters, tagLength: number) =>
  Effect.callback<Buffer>((resume) => {
    try {
      argon2("argon2id", { message: password, nonce: salt, tagLength, ...parameters }, (error, key) => {
        resume(error === null ? Effect.succeed(key) : Effect.die(error))
      })
    } catch (error) {
      // Invalid parameters are reported synchronously; ours are fixed or bounded above, so this is a defect.
      resume(Effect.die(error))
    }
  })

const verifyWith = (password: Redacted.Redacted<string>, stored: string) =>
  Option.match(parsePhc(stored), {
    onNone: () => Effect.succeed(false),
    onSome: (phc) =>
      derive(Redacted.value(password), phc.salt, phc, phc.hash.length).pipe(
        Effect.map((candidate) => candidate.length === phc.hash.length && timingSafeEqual(candidate, phc.hash))
      )
  })

const hash = (password: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const salt = randomBytes(saltLength)
    const { tagLength, ...parameters } = argon2idParameters
    const key = yield* derive(Redacted.value(password), salt, parameters, tagLength)
    return `$argon2id$v=19$m=${parameters.memory},t=${parameters.passes},p=${parameters.parallelism}$${b64(salt)}$${b64(key)}`
  })

/**
 * The production `PasswordHasher`: Argon2id from `node:crypto` (Node ≥ 24.7), PHC strings, constant-time
 * comparison. Parameters are read back from each stored hash, so raising them later keeps old hashes verifiable.
 * `verifyDummy` verifies against a hash made at start-up, so unknown emails cost exactly what a real check costs.
 */
export const PasswordHasherArgon2 = Layer.effect(
  PasswordHasher,
  Effect.gen(function*() {
    const permits = yield* Semaphore.make(concurrentHashes)
    const limited = permits.withPermits(1)
    const dummy = yield* limited(hash(Redacted.make(b64(randomBytes(24)))))
    return PasswordHasher.of({
      hash: Effect.fn("PasswordHasher.hash")(function*(password: Redacted.Redacted<string>) {
        return yield* limited(hash(password))
      }),
      verify: Effect.fn("PasswordHasher.verify")(function*(password: Redacted.Redacted<string>, stored: string) {
        return yield* limited(verifyWith(password, stored))
      }),
      verifyDummy: Effect.fn("PasswordHasher.verifyDummy")(function*(password: Redacted.Redacted<string>) {
        yield* limited(verifyWith(password, dummy))
        const matched: false = false
        return matched
      })
    })
  })
)
