import { Effect, FileSystem, Path } from "effect"
import { Digest } from "effect/crypto"
import { Base64Url } from "effect/encoding"

/** One file of the console, read once at start, with its validator. */
export interface ConsoleAsset {
  readonly name: string
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
}

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml"
}

// A strong validator from the bytes: a file changed by a deploy gets a new ETag, an unchanged one answers 304.
const etagOf = (body: Uint8Array) =>
  Effect.flatMap(Digest.Digest, (digest) => digest.digest(Digest.sha256, body)).pipe(
    Effect.map((digest) => `"${Base64Url.encode(digest).slice(0, 27)}"`),
    Effect.provide(Digest.layerWebCrypto)
  )

/** The folder the console ships in, inside this package: plain HTML, CSS and ES modules, never compiled. */
export const consoleDirectory = Effect.gen(function*() {
  const path = yield* Path.Path
  return path.join(path.dirname(yield* path.fromFileUrl(new URL(import.meta.url))), "..", "..", "..", "console")
})

/** Reads every file of `directory` whose type the console serves (anything else there is never served). */
export const loadConsoleAssets = Effect.fn("Console.loadAssets")(function*(directory: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const assets = new Map<string, ConsoleAsset>()
  for (const name of (yield* fs.readDirectory(directory)).sort()) {
    const contentType = contentTypes[path.extname(name)]
    if (contentType === undefined) continue
    const body = yield* fs.readFile(path.join(directory, name))
    assets.set(name, { name, body, contentType, etag: yield* etagOf(body) })
  }
  return assets
})
