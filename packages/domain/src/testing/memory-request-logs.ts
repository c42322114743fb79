import { DateTime, Effect, Layer, Option, Ref } from "effect"
import { decodeCursor, encodeCursor } from "../shared/index.ts"
import { RequestLogEntry, RequestLogRepository } from "../request-logs/index.ts"
import { ensureUp, MemoryStore } from "./memory-store.ts"

// Newest first by time, then by sequence number (numerically, as Postgres orders its bigint ids).
const newerFirst = (a: RequestLogEntry, b: RequestLogEntry) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt) || Number(b.id) - Number(a.id)

/** In-memory request logs: a list of its own (they are no part of any transaction), failing while the store is down. */
export const RequestLogRepositoryMemory = Layer.effect(
  RequestLogRepository,
  Effect.gen(function*() {
    const store = yield* MemoryStore
    const up = ensureUp.pipe(Effect.provideService(MemoryStore, store))
    const lines = yield* Ref.make<ReadonlyArray<RequestLogEntry>>([])
    let sequence = 0
    return RequestLogRepository.of({
      appendAll: (records) =>
        up.pipe(Effect.andThen(Ref.update(lines, (all) => [
          ...all,
          ...records.map((record) => new RequestLogEntry({
            id: String(++sequence),
            workspaceId: record.workspaceId,
            keyId: record.keyId,
            method: record.method,
            route: record.route,
            status: record.status,
            durationMs: record.durationMs,
            requestId: record.requestId,
            createdAt: DateTime.makeUnsafe(record.at)
          }))
        ]))),
      list: (workspaceId, filter, page, since) =>
        up.pipe(Effect.andThen(Ref.get(lines)), Effect.map((all) => {
          // As Postgres: a cursor whose id is no line's number (another list's) reads as no cursor.
          const after = Option.filter(decodeCursor(page.cursor), (position) => /^\d{1,18}$/.test(position.id))
          const matching = all
            .filter((line) =>
              line.workspaceId === workspaceId &&
              DateTime.toEpochMillis(line.createdAt) >= DateTime.toEpochMillis(since) &&
              (filter.keyId === undefined || line.keyId === filter.keyId) &&
              (filter.status === undefined || line.status === filter.status) &&
              (filter.requestId === undefined || line.requestId === filter.requestId))
            .sort(newerFirst)
            .filter((line) => after._tag === "None" || newerFirst(line, new RequestLogEntry({ ...line, id: after.value.id, createdAt: after.value.createdAt })) > 0)
          const data = matching.slice(0, page.limit)
          const last = data.at(-1)
          return { data, nextCursor: matching.length > data.length && last !== undefined ? encodeCursor(last) : null }
        })),
      pruneBefore: (cutoff) =>
        up.pipe(Effect.andThen(Ref.modify(lines, (all) => {
          const kept = all.filter((line) => DateTime.toEpochMillis(line.createdAt) >= DateTime.toEpochMillis(cutoff))
          return [all.length - kept.length, kept] as const
        })))
    })
  })
)
