// Requests timed from the client's side, for the tests that freeze a dependency and wait for the server to recover.

/** One request's status, problem body, how long its answer took and its `Retry-After`. */
export const timed = async (url: string, init: RequestInit = {}) => {
  const started = Date.now()
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) })
  return { status: response.status, body: await response.json(), millis: Date.now() - started, retryAfter: response.headers.get("retry-after") }
}

/** The statuses of `urls` once all answer 200, or the last ones seen when 20 seconds pass first (nothing restarts anything). */
export const statusesOnceRecovered = async (urls: ReadonlyArray<string>, init: RequestInit = {}): Promise<ReadonlyArray<number>> => {
  const deadline = Date.now() + 20_000
  let statuses: ReadonlyArray<number> = []
  while (Date.now() < deadline) {
    statuses = await Promise.all(urls.map(async (url) => (await timed(url, init)).status))
    if (statuses.every((status) => status === 200)) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return statuses
}
