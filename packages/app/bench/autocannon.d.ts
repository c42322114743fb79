// The few autocannon options and results the benchmark uses (the package ships no types).
declare module "autocannon" {
  interface Options {
    readonly url: string
    readonly connections: number
    readonly duration: number
    readonly pipelining?: number
    readonly headers?: Record<string, string>
    readonly method?: "GET" | "POST"
    readonly body?: string
    /** Replaces each `[<id>]` in the request (headers included) with a fresh id. */
    readonly idReplacement?: boolean
  }
  interface Histogram {
    readonly average: number
    readonly p50: number
    readonly p99: number
    readonly max: number
  }
  export interface Result {
    readonly requests: Histogram & { readonly total: number }
    readonly latency: Histogram
    readonly non2xx: number
    readonly errors: number
    readonly timeouts: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
