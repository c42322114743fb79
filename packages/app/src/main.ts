// The server's entry: Node keeps the code it compiled (types stripped, bytecode) between starts, so a restart does not
// strip and compile every module again; then the server itself loads. The cache sits in the project's own
// node_modules, not a shared temp folder another account could write; where it cannot be written, starts go on uncached.
import { enableCompileCache } from "node:module"
import { fileURLToPath } from "node:url"

enableCompileCache(fileURLToPath(new URL("../../../node_modules/.cache/node-compile-cache", import.meta.url)))
await import("./run-server.ts")
