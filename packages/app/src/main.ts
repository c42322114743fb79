// The server's entry. Node keeps the code it compiled (types stripped, bytecode) between starts, so a restart does not
// strip and compile every module again. The cache sits in the project's own node_modules, not a shared temp folder
// another account could write; where it cannot be written, starts go on uncached. The process first re-executes itself
// with the cache (and a fixed malloc mmap threshold) in its environment (see start-environment.ts); where it cannot,
// it enables the cache here.
import { enableCompileCache } from "node:module"
import { fileURLToPath } from "node:url"
import { execWithStartEnvironment } from "./start-environment.ts"

const compileCache = fileURLToPath(new URL("../../../node_modules/.cache/node-compile-cache", import.meta.url))
execWithStartEnvironment(compileCache)
enableCompileCache(compileCache)
await import("./run-server.ts")
