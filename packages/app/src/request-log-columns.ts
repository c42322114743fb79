import type { ApiKeyId, RequestLogRecord, WorkspaceId } from "@atrium/domain"

/**
 * Request-log lines waiting for their flush, a column each: numbers unboxed in their arrays and no object per line, so
 * what waits up to a second (longer than V8's young generation keeps anything) leaves little for the old generation.
 */
export class RequestLogColumns {
  private workspaceId: Array<WorkspaceId> = []
  private keyId: Array<ApiKeyId> = []
  private method: Array<string> = []
  private route: Array<string> = []
  private status: Array<number> = []
  private durationMs: Array<number> = []
  private requestId: Array<string> = []
  private at: Array<number> = []
  // Lines before `start` are dropped; the columns are cut once that is half of them, so a full buffer moves each line once.
  private start = 0

  get length(): number {
    return this.at.length - this.start
  }

  push(workspaceId: WorkspaceId, keyId: ApiKeyId, method: string, route: string, status: number, durationMs: number, requestId: string, at: number): void {
    this.workspaceId.push(workspaceId)
    this.keyId.push(keyId)
    this.method.push(method)
    this.route.push(route)
    this.status.push(status)
    this.durationMs.push(durationMs)
    this.requestId.push(requestId)
    this.at.push(at)
  }

  /** Drops the oldest `count` lines. */
  dropOldest(count: number): void {
    this.start = Math.min(this.at.length, this.start + count)
    if (this.start * 2 >= this.at.length) this.cut()
  }

  private cut(): void {
    const count = this.start
    this.start = 0
    this.workspaceId = this.workspaceId.slice(count)
    this.keyId = this.keyId.slice(count)
    this.method = this.method.slice(count)
    this.route = this.route.slice(count)
    this.status = this.status.slice(count)
    this.durationMs = this.durationMs.slice(count)
    this.requestId = this.requestId.slice(count)
    this.at = this.at.slice(count)
  }

  /** Every line as a record, oldest first, and empties the columns: the records live only as long as their write. */
  take(): Array<RequestLogRecord> {
    const records: Array<RequestLogRecord> = []
    for (let i = this.start; i < this.at.length; i++) {
      const workspaceId = this.workspaceId[i]
      const keyId = this.keyId[i]
      const method = this.method[i]
      const route = this.route[i]
      const status = this.status[i]
      const durationMs = this.durationMs[i]
      const requestId = this.requestId[i]
      const at = this.at[i]
      // The columns grow together: every index holds a value in each.
      if (workspaceId === undefined || keyId === undefined || method === undefined || route === undefined || status === undefined ||
        durationMs === undefined || requestId === undefined || at === undefined) continue
      records.push({ workspaceId, keyId, method, route, status, durationMs, requestId, at })
    }
    this.dropOldest(this.length)
    return records
  }
}
