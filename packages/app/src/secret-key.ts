import { liveSealedSecrets } from "@atrium/adapters-pg"
import { SecretBox } from "@atrium/domain"
import { Effect, Exit, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import type { AppConfig } from "./app-config.ts"

/** Where the embedded default keeps its generated secret key: inside the data directory, so one volume holds both. */
const keyFilePath = (dataDir: string) => join(resolve(dataDir), "keys", "secret.key")

/** Where earlier versions kept it: beside the data directory. */
const legacyKeyFilePath = (dataDir: string) => join(dirname(resolve(dataDir)), "secret.key")

// Moves a key from the earlier place into `keys/` (0700 folder, 0600 file); otherwise reads it, or creates one once.
const loadOrCreateKey = (dataDir: string): string => {
  const path = keyFilePath(dataDir)
  const legacy = legacyKeyFilePath(dataDir)
  // Parents with the ordinary mode (the embedded server's account may need to pass through them); data and keys private.
  mkdirSync(dirname(resolve(dataDir)), { recursive: true })
  mkdirSync(resolve(dataDir), { recursive: true, mode: 0o700 })
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  chmodSync(dirname(path), 0o700)
  if (!existsSync(path) && existsSync(legacy)) renameSync(legacy, path)
  if (existsSync(path)) {
    chmodSync(path, 0o600)
    return readFileSync(path, "utf8").trim()
  }
  const fresh = randomBytes(32).toString("base64")
  writeFileSync(path, `${fresh}\n`, { mode: 0o600, flag: "wx" })
  return fresh
}

/**
 * The key that seals webhook signing secrets at rest. `ATRIUM_SECRET_KEY` when set; on the embedded default a key
 * generated once into `$ATRIUM_DATA_DIR/keys/secret.key` (mode 0600, outside the database, so a copy of the database
 * alone reveals nothing); a Postgres server without a configured key refuses to start rather than store secrets it
 * cannot protect.
 */
export const secretBoxLayer = (config: AppConfig) =>
  Layer.unwrap(Effect.gen(function*() {
    if (Option.isSome(config.secretKey)) return SecretBox.layerWith(config.secretKey.value)
    if (config.database._tag === "Url") {
      return yield* Effect.die(new Error("ATRIUM_SECRET_KEY is required with DATABASE_URL (32 random bytes, base64)"))
    }
    const dataDir = config.database.dataDir
    const key = yield* Effect.try({
      try: () => loadOrCreateKey(dataDir),
      catch: (cause) => new Error(`cannot read or create the secret key ${keyFilePath(dataDir)}: ${String(cause)}`)
    }).pipe(Effect.orDie)
    return SecretBox.layerWith(Redacted.make(key))
  }))

// Where the key came from, for the refusal message.
const keySource = (config: AppConfig) =>
  Option.isSome(config.secretKey) || config.database._tag === "Url" ? "ATRIUM_SECRET_KEY" : keyFilePath(config.database.dataDir)

/**
 * Refuses to start when webhook signing secrets in the database cannot be opened with the key (it was replaced or lost):
 * deliveries would otherwise sit pending forever while every pass logs a warning.
 */
export const secretKeyCheck = (config: AppConfig) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const box = yield* SecretBox
    const secrets = yield* liveSealedSecrets(20)
    const unreadable = yield* Effect.filter(secrets, (secret) => box.open(secret.sealed).pipe(Effect.exit, Effect.map(Exit.isFailure)))
    if (unreadable.length === 0) return
    const endpoints = [...new Set(unreadable.map((secret) => `${secret.endpointId} (workspace ${secret.workspaceId})`))]
    return yield* Effect.die(new Error(
      `The secret key (${keySource(config)}) cannot open the signing secrets of ${endpoints.length} webhook endpoint(s): ` +
        `${endpoints.join(", ")}. Restore the original key, or rotate those endpoints' secrets with ` +
        "`npm run atrium -- rotate-webhook-secret --workspace <workspace> --endpoint <endpoint>` and give receivers the new secret."
    ))
  }))
