// The server's entry: Node keeps the code it compiled (types stripped, bytecode) between starts, so a restart does not
// strip and compile every module again; then the server itself loads.
import { enableCompileCache } from "node:module"

enableCompileCache()
await import("./run-server.ts")
