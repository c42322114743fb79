import { DateTime, Effect, Layer, Option } from "effect"
import { FeatureRequest, FeatureRequestRepository } from "../feedback/index.ts"
import { encodeCursor, encodeRankedCursor, type FeatureRequestId, type UserId } from "../shared/index.ts"
import { type MemoryState, pageInOrder, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const voteKey = (id: string, userId: string) => `${id}/${userId}`
const votersOf = (s: MemoryState, id: string) =>
  Array.from(s.featureVotes.keys()).filter((key) => key.startsWith(`${id}/`)).map((key) => key.slice(id.length + 1))
const recount = (s: MemoryState, id: string): MemoryState => {
  const request = s.featureRequests.get(id)
  if (request === undefined) return s
  return { ...s, featureRequests: withEntry(s.featureRequests, id, new FeatureRequest({ ...request, voteCount: votersOf(s, id).length })) }
}

/** In-memory feature requests and votes. */
export const FeatureRequestRepositoryMemory = Layer.effect(
  FeatureRequestRepository,
  Effect.gen(function*() {
    const { read, write, modify } = yield* useStore
    return FeatureRequestRepository.of({
      insert: (request, key) =>
        write((s) => ({
          ...s,
          featureRequests: withEntry(s.featureRequests, request.id, request),
          featureIdempotency: Option.isSome(key) ? withEntry(s.featureIdempotency, `${request.authorId}/${key.value}`, request.id) : s.featureIdempotency
        })),
      findById: (id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.featureRequests.get(id)))),
      findByIdempotencyKey: (authorId, key) =>
        read.pipe(Effect.map((s) => Option.flatMap(Option.fromNullishOr(s.featureIdempotency.get(`${authorId}/${key}`)), (id) => Option.fromNullishOr(s.featureRequests.get(id))))),
      list: (filter, page) =>
        read.pipe(Effect.map((s) => {
          const all = Array.from(s.featureRequests.values()).filter((r) => filter.status === undefined ? r.status !== "merged" : r.status === filter.status)
          const sorted = all.sort((a, b) =>
            (filter.sort === "top" ? b.voteCount - a.voteCount : 0) || millis(b.createdAt) - millis(a.createdAt) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)
          )
          return pageInOrder(sorted, page, (r) => filter.sort === "top" ? encodeRankedCursor(r.voteCount, r) : encodeCursor(r))
        })),
      recentOpen: (limit) =>
        read.pipe(Effect.map((s) =>
          Array.from(s.featureRequests.values())
            .filter((r) => r.status !== "merged")
            .sort((a, b) => millis(b.createdAt) - millis(a.createdAt))
            .slice(0, limit)
        )),
      // In memory the transaction itself serialises (one at a time, under the transactor's semaphore).
      createdByAuthorSinceForCreate: (authorId, since) =>
        read.pipe(Effect.map((s) =>
          Array.from(s.featureRequests.values())
            .filter((r) => r.authorId === authorId && DateTime.isGreaterThan(r.createdAt, since))
            .map((r) => r.createdAt)
            .sort((a, b) => millis(a) - millis(b))
        )),
      update: (request) =>
        write((s) => {
          const current = s.featureRequests.get(request.id)
          return { ...s, featureRequests: withEntry(s.featureRequests, request.id, new FeatureRequest({ ...request, voteCount: current?.voteCount ?? request.voteCount })) }
        }),
      addVote: (id, userId, at) =>
        modify((s) => {
          if (s.featureVotes.has(voteKey(id, userId))) return [false, s] as const
          return [true, recount({ ...s, featureVotes: withEntry(s.featureVotes, voteKey(id, userId), at) }, id)] as const
        }),
      removeVote: (id, userId) =>
        modify((s) => {
          if (!s.featureVotes.has(voteKey(id, userId))) return [false, s] as const
          const featureVotes = new Map(s.featureVotes)
          featureVotes.delete(voteKey(id, userId))
          return [true, recount({ ...s, featureVotes }, id)] as const
        }),
      votedBy: (userId: UserId, ids: ReadonlyArray<FeatureRequestId>) =>
        read.pipe(Effect.map((s) => new Set(ids.filter((id) => s.featureVotes.has(voteKey(id, userId)))))),
      voters: (id) => read.pipe(Effect.map((s) => votersOf(s, id).flatMap((userId) => Option.toArray(Option.map(Option.fromNullishOr(s.users.get(userId)), (found) => found.user.id))))),
      moveVotes: (from, into) =>
        write((s) => {
          const featureVotes = new Map(s.featureVotes)
          for (const userId of votersOf(s, from)) {
            const at = featureVotes.get(voteKey(from, userId))
            featureVotes.delete(voteKey(from, userId))
            if (at !== undefined && !featureVotes.has(voteKey(into, userId))) featureVotes.set(voteKey(into, userId), at)
          }
          return recount(recount({ ...s, featureVotes }, from), into)
        })
    })
  })
)
