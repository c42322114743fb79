import { SecretBox } from "@atrium/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { AppConfig } from "./app-config.ts"

/** Where the embedded default keeps its generated secret key: beside the data directory, never inside the database. */
export const keyFilePath = (dataDir: string) => join(dirname(dataDir), "secret.key")

/**
 * The key that seals webhook signing secrets at rest. `ATRIUM_SECRET_KEY` when set; on the embedded default a key
 * generated once into a file beside the data (mode 0600), so a copy of the database alone reveals nothing; a Postgres
 * server without a configured key refuses to start rather than store secrets it cannot protect.
 */
export const secretBoxLayer = (config: AppConfig) =>
  Layer.unwrap(Effect.gen(function*() {
    if (Option.isSome(config.secretKey)) return SecretBox.layer(config.secretKey.value)
    if (config.database._tag === "Url") {
      return yield* Effect.die(new Error("ATRIUM_SECRET_KEY is required with DATABASE_URL (32 random bytes, base64)"))
    }
    const path = keyFilePath(config.database.dataDir)
    const key = yield* Effect.sync(() => {
      if (existsSync(path)) return readFileSync(path, "utf8").trim()
      mkdirSync(dirname(path), { recursive: true })
      const fresh = randomBytes(32).toString("base64")
      writeFileSync(path, `${fresh}\n`, { mode: 0o600 })
      return fresh
    })
    return SecretBox.layer(Redacted.make(key))
  }))
