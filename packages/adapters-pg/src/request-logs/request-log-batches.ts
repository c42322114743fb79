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
  /** Each endpoint of the batch once (`methods[n]`, `routes[n]`); a line names its own by `call`, from 1. */
  readonly methods: PgTypes.Parameter
  readonly routes: PgTypes.Parameter
  readonly at: PgTypes.Parameter
  readonly call: PgTypes.Parameter
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
  readonly methods: Array<string>
  readonly routes: Array<string>
  // Route, then method, to the place of that endpoint in `methods` and `routes` (from 1).
  readonly calls: Map<string, Map<string, number>>
  readonly call: Array<number>
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
  methods: [],
  routes: [],
  calls: new Map(),
  call: [],
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
    methods: PgTypes.array(columns.methods, PgTypes.OID.text),
    routes: PgTypes.array(columns.routes, PgTypes.OID.text),
    at: PgTypes.array(columns.at, PgTypes.OID.timestamptz),
    call: PgTypes.array(columns.call, PgTypes.OID.int2),
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

// The place of an endpoint in the batch's `methods` and `routes`, added on its first line.
const callOf = (columns: Columns, method: string, route: string): number => {
  let methods = columns.calls.get(route)
  if (methods === undefined) {
    methods = new Map()
    columns.calls.set(route, methods)
  }
  const known = methods.get(method)
  if (known !== undefined) return known
  columns.methods.push(method)
  columns.routes.push(route)
  methods.set(method, columns.methods.length)
  return columns.methods.length
}

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
    columns.call.push(callOf(columns, record.method, record.route))
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
