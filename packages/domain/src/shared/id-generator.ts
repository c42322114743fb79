import { Context, Effect, Layer } from "effect"
import { encodeBase62 } from "./base62.ts"
import type { IdPrefix } from "./ids.ts"
import { SecureRandom } from "./secure-random.ts"

/** Port: new prefixed random identifiers (`ws_…`, `key_…`). */
export class IdGenerator extends Context.Service<IdGenerator, {
  readonly make: (prefix: IdPrefix) => Effect.Effect<string>
}>()("@atrium/domain/IdGenerator") {
  /** 128 random bits in 22 base62 characters after the prefix. */
  static readonly layer = Layer.effect(
    IdGenerator,
    Effect.map(SecureRandom, (random) =>
      IdGenerator.of({
        make: (prefix) => random.bytes(16).pipe(Effect.map((bytes) => `${prefix}_${encodeBase62(bytes, 22)}`))
      }))
  )
}
