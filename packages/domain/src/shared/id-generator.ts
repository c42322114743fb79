import { Context, Effect, Layer } from "effect"
import { encodeBase62 } from "./base62.ts"
import type { IdPrefix } from "./ids.ts"
import { SecureRandom } from "./secure-random.ts"

/** Port: new prefixed random identifiers (`ws_…`, `key_…`). */
export class IdGenerator extends Context.Service<IdGenerator, {
  readonly make: (prefix: IdPrefix) => Effect.Effect<string>
}>()("@atrium/domain/IdGenerator") {
  /**
   * 128 random bits in 22 base62 characters after the prefix. The bits are drawn 256 ids at a time (one call to the
   * random source costs as much for 4 KiB as for 16 bytes); ids are not secrets, so the pool holds nothing to guard.
   */
  static readonly layer = Layer.effect(
    IdGenerator,
    Effect.gen(function*() {
      const random = yield* SecureRandom
      const idBytes = 16
      const poolBytes = 256 * idBytes
      let pool: Uint8Array = new Uint8Array(0)
      let used = 0
      const next = Effect.suspend(() => {
        if (used < pool.length) return Effect.succeed(pool.subarray(used, used += idBytes))
        return random.bytes(poolBytes).pipe(Effect.map((fresh) => {
          pool = fresh
          used = idBytes
          return fresh.subarray(0, idBytes)
        }))
      })
      return IdGenerator.of({
        make: (prefix) => next.pipe(Effect.map((bytes) => `${prefix}_${encodeBase62(bytes, 22)}`))
      })
    })
  )
}
