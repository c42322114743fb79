import { Effect, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { chmod, readFile, rename, writeFile } from "node:fs/promises"
import { failedTo } from "./embedded-postgres-error.ts"

/** How to reach the embedded cluster: its superuser password and the port it was last started on. */
export interface ConnectionInfo {
  readonly port: number
  readonly password: Redacted.Redacted<string>
}

const ConnectionJson = Schema.fromJsonString(Schema.Struct({ port: Schema.Int, password: Schema.String }))

/** A fresh superuser password (never logged, only in the 0600 connection file). */
export const newPassword = (): Redacted.Redacted<string> => Redacted.make(randomBytes(24).toString("base64url"))

/** The saved connection, or `None` before the cluster was first initialised. */
export const readConnection = Effect.fn("EmbeddedPostgres.readConnection")(function*(path: string) {
  const text = yield* Effect.tryPromise(() => readFile(path, "utf8")).pipe(Effect.option)
  if (Option.isNone(text)) return Option.none<ConnectionInfo>()
  const saved = yield* Schema.decodeUnknownEffect(ConnectionJson)(text.value).pipe(
    Effect.mapError(failedTo(`${path} is damaged: restore it from a backup (it holds the database password)`))
  )
  return Option.some<ConnectionInfo>({ port: saved.port, password: Redacted.make(saved.password) })
})

/** Saves the connection with mode 0600, replacing the file in one step so a crash never leaves half of it. */
export const writeConnection = Effect.fn("EmbeddedPostgres.writeConnection")(function*(path: string, info: ConnectionInfo) {
  const text = JSON.stringify({ port: info.port, password: Redacted.value(info.password) })
  const temporary = `${path}.${process.pid}.tmp`
  yield* Effect.tryPromise({
    try: async () => {
      await writeFile(temporary, `${text}\n`, { mode: 0o600 })
      await chmod(temporary, 0o600)
      await rename(temporary, path)
    },
    catch: failedTo(`cannot write ${path}`)
  })
})
