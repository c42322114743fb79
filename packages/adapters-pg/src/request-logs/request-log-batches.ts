import type { RequestLogRecord } from "@atrium/domain"
import { PgTypes } from "@effect/sql-pg"
import { Result } from "effect"
import { isForeignId } from "./request-log-id-window.ts"

/** One `request_log_batches` row to insert: a key's lines of one flush, a column each, bound with their element types. */
export interface BatchRow {
  readonly workspaceId: string
  readonly keyId: string
  readonly firstAt: Date
  readonly lastAt: Date
  readonly statuses: PgTypes.Parameter
  readonly at: PgTypes.Parameter
  readonly method: PgTypes.Parameter
  readonly route: PgTypes.Parameter
  readonly status: PgTypes.Parameter
  readonly durationMs: PgTypes.Parameter
  readonly requestId: PgTypes.Parameter
  /** Each line's place in the flush (from 1): its id is the flush's number times 100,000 plus its place. */
  readonly place: PgTypes.Parameter
  /** The request ids `list` cannot find by their time (see `isForeignId`). */
  readonly foreignIds: PgTypes.Parameter
}

interface Columns {
  readonly workspaceId: string
  readonly keyId: string
  readonly at: Array<number>
  readonly method: Array<string>
  readonly route: Array<string>
  readonly status: Array<number>
  readonly durationMs: Array<number>
  readonly requestId: Array<string>
  readonly place: Array<number>
  readonly foreignIds: Array<string>
  readonly statuses: Set<number>
  first: number
  last: number
}

const empty = (record: RequestLogRecord): Columns => ({
  workspaceId: record.workspaceId,
  keyId: record.keyId,
  at: [],
  method: [],
  route: [],
  status: [],
  durationMs: [],
  requestId: [],
  place: [],
  foreignIds: [],
  statuses: new Set(),
  first: record.at,
  last: record.at
})

// Numbers are bound with their element type named: left to inference, a whole duration among fractions (exactly 2 ms)
// makes the driver refuse the batch (int4 and float8 in one array).
const toRow = (columns: Columns): Result.Result<BatchRow, PgTypes.CodecError> =>
  Result.all({
    statuses: PgTypes.array([...columns.statuses], PgTypes.OID.int2),
    at: PgTypes.array(columns.at, PgTypes.OID.timestamptz),
    method: PgTypes.array(columns.method, PgTypes.OID.text),
    route: PgTypes.array(columns.route, PgTypes.OID.text),
    status: PgTypes.array(columns.status, PgTypes.OID.int2),
    durationMs: PgTypes.array(columns.durationMs, PgTypes.OID.float8),
    requestId: PgTypes.array(columns.requestId, PgTypes.OID.text),
    place: PgTypes.array(columns.place, PgTypes.OID.int4),
    foreignIds: PgTypes.array(columns.foreignIds, PgTypes.OID.text)
  }).pipe(Result.map((arrays) => ({
    ...arrays,
    workspaceId: columns.workspaceId,
    keyId: columns.keyId,
    firstAt: new Date(columns.first),
    lastAt: new Date(columns.last)
  })))

/** The lines of a flush (fewer than 100,000) as one row per key, each line keeping its place in the flush. */
export const toBatches = (records: ReadonlyArray<RequestLogRecord>): Result.Result<Array<BatchRow>, PgTypes.CodecError> => {
  const groups = new Map<string, Columns>()
  for (let i = 0; i < records.length; i++) {
    const record = records[i]
    if (record === undefined) continue
    // Key ids are unique across workspaces; the workspace in the group key keeps a stray record from joining another's batch.
    const group = `${record.workspaceId} ${record.keyId}`
    let columns = groups.get(group)
    if (columns === undefined) {
      columns = empty(record)
      groups.set(group, columns)
    }
    columns.place.push(i + 1)
    columns.at.push(record.at)
    columns.method.push(record.method)
    columns.route.push(record.route)
    columns.status.push(record.status)
    columns.durationMs.push(record.durationMs)
    columns.requestId.push(record.requestId)
    columns.statuses.add(record.status)
    if (record.at < columns.first) columns.first = record.at
    if (record.at > columns.last) columns.last = record.at
    if (isForeignId(record.requestId, record.at)) columns.foreignIds.push(record.requestId)
  }
  return Result.all(Array.from(groups.values(), toRow))
}
