/**
 * What the server process needs in its environment from its first instruction on, which only a fresh exec gives it:
 * - glibc's malloc serves a block below its mmap threshold from the calling thread's arena and keeps it there once
 *   freed, and it raises that threshold to the largest mapped block freed so far (up to 32 MiB): after a few sign-ins
 *   every thread-pool thread would hold an Argon2id block (12 MiB) for good. A fixed threshold maps each such block
 *   and returns it when its hash is done; glibc reads it only when the process starts.
 * - Node's compile cache, so that a warm start strips no TypeScript at all: the entry is stripped before it could
 *   enable the cache itself, and the stripper (a WebAssembly module) then stays loaded, about 17 MB of the server.
 */
export const startEnvironment = (compileCache: string): Record<string, string> => ({
  MALLOC_MMAP_THRESHOLD_: String(1024 * 1024),
  NODE_COMPILE_CACHE: compileCache
})

/**
 * Re-executes this very process (same pid, flags and arguments; one more Node start, with nothing left to strip)
 * with whatever of `startEnvironment` it lacks. Where `execve` is missing (Windows) or fails, it goes on as it is.
 */
export const execWithStartEnvironment = (compileCache: string) => {
  const missing = Object.entries(startEnvironment(compileCache)).filter(([name]) => process.env[name] === undefined)
  if (missing.length === 0 || process.execve === undefined) return
  try {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...Object.fromEntries(missing) })
  } catch {
    // Not replaced: the server runs with glibc's dynamic threshold and strips its entry.
  }
}
