import { withDeadline } from "@atrium/domain"
import { Duration, Effect, Exit, Layer } from "effect"
import { Redis } from "effect/persistence"

// The Redis client (ioredis, about 5 MB of heap) is loaded only when Redis is configured.
const redisClient = (url: string) =>
  Layer.unwrap(Effect.map(Effect.promise(() => import("@effect/platform-node/NodeRedis")), (NodeRedis) => NodeRedis.layer({ url })))

/** How long a Redis command may go unanswered before it fails: far above a healthy round trip, well inside a request. */
const defaultRedisCommandTimeout = Duration.seconds(2)

/**
 * Effect's `Redis` over node-redis at `url`, each command (and script) failing with a `RedisError` when Redis does not
 * answer within `timeout` — the rate-limit store then answers 503 `unavailable`. node-redis bounds only a command
 * still waiting to be written: once on the wire, a frozen Redis (or a peer the network still acknowledges) would hold
 * it forever. A connection that drops is node-redis's to reconnect, as before.
 */
export const AnsweringRedis = (url: string, timeout: Duration.Duration = defaultRedisCommandTimeout): Layer.Layer<Redis.Redis, Redis.RedisError> => {
  const millis = Duration.toMillis(timeout)
  const late = () => Exit.fail(new Redis.RedisError({ cause: new Error(`Redis did not answer within ${millis} ms`) }))
  return Layer.effect(
    Redis.Redis,
    Effect.map(Redis.Redis, (redis) =>
      Redis.Redis.of({
        ...redis,
        send: <A>(command: string, ...args: ReadonlyArray<string>) => withDeadline(redis.send<A>(command, ...args), millis, late),
        eval: (script) => {
          const run = redis.eval(script)
          return (...params) => withDeadline(run(...params), millis, late)
        }
      }))
  ).pipe(Layer.provide(redisClient(url)))
}
