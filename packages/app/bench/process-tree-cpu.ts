// CPU time of a process tree from /proc: what a load costs the server and its embedded PostgreSQL, per request — the
// figure that shows whether a throughput is bound by the machine's cores or by waiting.
import { readFileSync } from "node:fs"
import { processTree } from "./process-tree-memory.ts"

// Linux reports CPU time in clock ticks of 1/100 s (USER_HZ).
const millisPerTick = 10

const cpuMillisOf = (pid: number): number => {
  let stat = ""
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return 0
  }
  // Fields after the command name (which may hold spaces): utime and stime are the 14th and 15th of the line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * millisPerTick
}

/** CPU milliseconds of every process of the tree under `root` now. */
export const treeCpu = (root: number): ReadonlyMap<number, number> => new Map(processTree(root).map((pid) => [pid, cpuMillisOf(pid)]))

/** CPU milliseconds the root and the rest of its tree spent since `before` (a process gone since then is not counted). */
export const cpuSince = (root: number, before: ReadonlyMap<number, number>) => {
  let own = 0
  let rest = 0
  for (const [pid, millis] of treeCpu(root)) {
    const spent = millis - (before.get(pid) ?? 0)
    if (pid === root) own += spent
    else rest += spent
  }
  return { own, rest }
}
