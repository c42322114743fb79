import { RateLimiterMemory } from "@atrium/adapters-http"
import { Layer, Option, Redacted } from "effect"
import { RateLimiter } from "effect/persistence"
import { AnsweringRedis } from "./answering-redis.ts"
import type { AppConfig } from "./app-config.ts"

/**
 * Where rate limits and throttles are counted: in Redis when `ATRIUM_REDIS_URL` is set, so every process shares one
 * count per key (Effect's own Redis store, atomic Lua scripts; a command Redis leaves unanswered fails in seconds), else
 * in this process's memory.
 */
export const rateLimiterLayer = (config: Pick<AppConfig, "redis">) =>
  Option.match(config.redis, {
    onNone: () => RateLimiterMemory,
    onSome: ({ prefix, url }) =>
      RateLimiter.layer.pipe(
        Layer.provide(RateLimiter.layerStoreRedis({ prefix: `${prefix}ratelimit:` })),
        Layer.provide(AnsweringRedis(Redacted.value(url)))
      )
  })
