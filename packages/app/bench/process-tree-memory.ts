// Peak memory of a process and all its descendants (the server and its embedded PostgreSQL postmaster and backends),
// sampled from /proc: VmHWM of one process misses the database, which is part of what `npm start` costs.
import { readdirSync, readFileSync } from "node:fs"

/** Peaks seen so far, in MB. */
export interface TreeMemory {
  /** Largest sum of RSS over the tree in one sample (shared pages counted once per process). */
  readonly rss: number
  /** Largest sum of PSS over the tree in one sample (shared pages split between their users: the fairer total). */
  readonly pss: number
  /** Largest RSS of the root process alone. */
  readonly rootRss: number
  /** Most processes in the tree in one sample. */
  readonly processes: number
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

const kilobytes = (text: string, field: string) => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)
  return match === null ? 0 : Number(match[1])
}

// Children of every thread of `pid` (a child belongs to the thread that forked it).
const childrenOf = (pid: number): Array<number> => {
  let tasks: Array<string> = []
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  return tasks.flatMap((task) => read(`/proc/${pid}/task/${task}/children`).split(" ").filter((s) => s.length > 0).map(Number))
}

/** The pid and every descendant, alive at the moment of reading. */
export const processTree = (root: number): Array<number> => {
  const seen: Array<number> = []
  const pending = [root]
  while (pending.length > 0) {
    const pid = pending.pop() ?? root
    if (seen.includes(pid)) continue
    seen.push(pid)
    pending.push(...childrenOf(pid))
  }
  return seen
}

/** One sample of the tree: summed RSS and PSS in kB, and the root's RSS. */
export const sampleTree = (root: number) => {
  const pids = processTree(root)
  let rss = 0
  let pss = 0
  let rootRss = 0
  for (const pid of pids) {
    const status = read(`/proc/${pid}/status`)
    const own = kilobytes(status, "VmRSS")
    rss += own
    if (pid === root) rootRss = own
    pss += kilobytes(read(`/proc/${pid}/smaps_rollup`), "Pss")
  }
  return { rss, pss, rootRss, processes: pids.length }
}

/** Samples the tree under `root` every `intervalMs` until stopped; `peak()` reads the largest sums so far. */
export const watchTree = (root: number, intervalMs = 100) => {
  let peak = { rss: 0, pss: 0, rootRss: 0, processes: 0 }
  const sample = () => {
    const now = sampleTree(root)
    peak = {
      rss: Math.max(peak.rss, now.rss),
      pss: Math.max(peak.pss, now.pss),
      rootRss: Math.max(peak.rootRss, now.rootRss),
      processes: Math.max(peak.processes, now.processes)
    }
  }
  sample()
  const timer = setInterval(sample, intervalMs)
  timer.unref()
  return {
    peak: (): TreeMemory => ({ rss: peak.rss / 1024, pss: peak.pss / 1024, rootRss: peak.rootRss / 1024, processes: peak.processes }),
    stop: () => clearInterval(timer)
  }
}

/** The high-water mark of one process's RSS (VmHWM), in MB. */
export const peakRssOf = (pid: number | undefined) => pid === undefined ? Number.NaN : kilobytes(read(`/proc/${pid}/status`), "VmHWM") / 1024
