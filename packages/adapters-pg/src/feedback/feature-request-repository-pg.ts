import { FeatureRequest, type FeatureRequestId, FeatureRequestRepository, type FeatureRequestSort, type FeatureRequestStatus, type PageRequest, UserId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { fetchSize, toPageBy } from "../shared/keyset-page.ts"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable } from "../shared/sql-errors.ts"

const FeatureRequestRow = Schema.Struct({
  ...FeatureRequest.fields,
  voteCount: Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int)),
  createdAt: Schema.DateTimeUtcFromDate,
  statusChangedAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())
const decodeRequests = Schema.decodeUnknownEffect(Schema.Array(FeatureRequestRow))
const decodeTimes = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ created_at: Schema.DateTimeUtcFromDate })))
const decodeUserIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ user_id: UserId })))

const columns = "id, workspace_id, author_id, author_name, title, details, status, status_note, merged_into, vote_count::text AS vote_count, created_at, status_changed_at"

// The "top" order pages by (votes, created_at, id); its cursor carries the votes in front of the usual position.
const topCursor = {
  encode: (request: FeatureRequest) =>
    Buffer.from(`${request.voteCount}.${DateTime.toEpochMillis(request.createdAt)}.${request.id}`, "utf8").toString("base64url"),
  decode: (cursor: string | undefined) => {
    if (cursor === undefined || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Option.none()
    const match = /^(\d{1,15})\.(-?\d{1,16})\.(fr_[0-9A-Za-z]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
    if (match === null) return Option.none()
    const [, votes, millis, id] = match
    return Option.map(DateTime.make(Number(millis)), (createdAt) => ({ votes: Number(votes), createdAt, id: id ?? "" }))
  }
}
const newCursor = {
  encode: (request: FeatureRequest) => Buffer.from(`${DateTime.toEpochMillis(request.createdAt)}.${request.id}`, "utf8").toString("base64url"),
  decode: (cursor: string | undefined) => {
    if (cursor === undefined || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Option.none()
    const match = /^(-?\d{1,16})\.(fr_[0-9A-Za-z]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"))
    if (match === null) return Option.none()
    const [, millis, id] = match
    return Option.map(DateTime.make(Number(millis)), (createdAt) => ({ createdAt, id: id ?? "" }))
  }
}

/** Postgres feature requests and votes; the vote count is kept in the same statement as the vote. */
export const FeatureRequestRepositoryPg = Layer.effect(
  FeatureRequestRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const toRequests = (rows: ReadonlyArray<unknown>) => decodeRequests(rows).pipe(Effect.map((decoded) => decoded.map((row) => new FeatureRequest(row))))

    const insert = Effect.fn("FeatureRequestRepository.insert")(function*(request: FeatureRequest, key: Option.Option<string>) {
      yield* sql`
        INSERT INTO feature_requests (id, workspace_id, author_id, author_name, title, details, status, status_note, merged_into,
          vote_count, idempotency_key, created_at, status_changed_at)
        VALUES (${request.id}, ${request.workspaceId}, ${request.authorId}, ${request.authorName}, ${request.title}, ${request.details},
          ${request.status}, ${Option.getOrNull(request.statusNote)}, ${Option.getOrNull(request.mergedInto)}, 0, ${Option.getOrNull(key)},
          ${DateTime.toDateUtc(request.createdAt)}, ${DateTime.toDateUtc(request.statusChangedAt)})
      `.pipe(orUnavailable)
    })

    const findById = Effect.fn("FeatureRequestRepository.findById")(function*(id: FeatureRequestId) {
      const rows = yield* sql`SELECT ${sql.literal(columns)} FROM feature_requests WHERE id = ${id}`.pipe(Effect.flatMap(toRequests), orUnavailable)
      return Option.fromNullishOr(rows[0])
    })

    const findByIdempotencyKey = Effect.fn("FeatureRequestRepository.findByIdempotencyKey")(function*(authorId: UserId, key: string) {
      const rows = yield* sql`
        SELECT ${sql.literal(columns)} FROM feature_requests WHERE author_id = ${authorId} AND idempotency_key = ${key}
      `.pipe(Effect.flatMap(toRequests), orUnavailable)
      return Option.fromNullishOr(rows[0])
    })

    const list = Effect.fn("FeatureRequestRepository.list")(function*(
      filter: { readonly status: FeatureRequestStatus | undefined; readonly sort: FeatureRequestSort },
      page: PageRequest
    ) {
      const status = filter.status === undefined ? sql`status <> 'merged'` : sql`status = ${filter.status}`
      if (filter.sort === "top") {
        const after = Option.match(topCursor.decode(page.cursor), {
          onNone: () => sql`TRUE`,
          onSome: (p) => sql`(vote_count, created_at, id) < (${p.votes}, ${DateTime.toDateUtc(p.createdAt)}, ${p.id})`
        })
        const rows = yield* sql`
          SELECT ${sql.literal(columns)} FROM feature_requests WHERE ${status} AND ${after}
          ORDER BY vote_count DESC, created_at DESC, id DESC LIMIT ${fetchSize(page)}
        `.pipe(Effect.flatMap(toRequests), orUnavailable)
        const found = toPageBy(rows, page, (row) => row)
        const last = found.data.at(-1)
        return { data: found.data, nextCursor: found.nextCursor === null || last === undefined ? null : topCursor.encode(last) }
      }
      const after = Option.match(newCursor.decode(page.cursor), {
        onNone: () => sql`TRUE`,
        onSome: (p) => sql`(created_at, id) < (${DateTime.toDateUtc(p.createdAt)}, ${p.id})`
      })
      const rows = yield* sql`
        SELECT ${sql.literal(columns)} FROM feature_requests WHERE ${status} AND ${after}
        ORDER BY created_at DESC, id DESC LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(toRequests), orUnavailable)
      const found = toPageBy(rows, page, (row) => row)
      const last = found.data.at(-1)
      return { data: found.data, nextCursor: found.nextCursor === null || last === undefined ? null : newCursor.encode(last) }
    })

    const recentOpen = Effect.fn("FeatureRequestRepository.recentOpen")(function*(limit: number) {
      return yield* sql`
        SELECT ${sql.literal(columns)} FROM feature_requests WHERE status <> 'merged' ORDER BY created_at DESC LIMIT ${Math.max(1, Math.trunc(limit))}
      `.pipe(Effect.flatMap(toRequests), orUnavailable)
    })

    // The advisory lock (held to the end of the transaction) makes one author's concurrent submissions take turns, so
    // each counts the ones committed before it.
    const createdByAuthorSinceForCreate = Effect.fn("FeatureRequestRepository.createdByAuthorSinceForCreate")(function*(authorId: UserId, since: DateTime.Utc) {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`feature_requests:${authorId}`}))`.pipe(orUnavailable)
      const rows = yield* sql`
        SELECT created_at FROM feature_requests WHERE author_id = ${authorId} AND created_at > ${DateTime.toDateUtc(since)} ORDER BY created_at
      `.pipe(Effect.flatMap(decodeTimes), orUnavailable)
      return rows.map((row) => row.created_at)
    })

    const update = Effect.fn("FeatureRequestRepository.update")(function*(request: FeatureRequest) {
      yield* sql`
        UPDATE feature_requests SET status = ${request.status}, status_note = ${Option.getOrNull(request.statusNote)},
          merged_into = ${Option.getOrNull(request.mergedInto)}, status_changed_at = ${DateTime.toDateUtc(request.statusChangedAt)}
        WHERE id = ${request.id}
      `.pipe(orUnavailable)
    })

    // One statement: the vote and its count change together, and a second vote inserts nothing.
    const addVote = Effect.fn("FeatureRequestRepository.addVote")(function*(id: FeatureRequestId, userId: UserId, at: DateTime.Utc) {
      const rows = yield* sql`
        WITH added AS (
          INSERT INTO feature_request_votes (request_id, user_id, created_at) VALUES (${id}, ${userId}, ${DateTime.toDateUtc(at)})
          ON CONFLICT DO NOTHING RETURNING request_id
        )
        UPDATE feature_requests SET vote_count = vote_count + 1 FROM added WHERE feature_requests.id = added.request_id RETURNING feature_requests.id
      `.pipe(orUnavailable)
      return rows.length > 0
    })

    const removeVote = Effect.fn("FeatureRequestRepository.removeVote")(function*(id: FeatureRequestId, userId: UserId) {
      const rows = yield* sql`
        WITH removed AS (DELETE FROM feature_request_votes WHERE request_id = ${id} AND user_id = ${userId} RETURNING request_id)
        UPDATE feature_requests SET vote_count = vote_count - 1 FROM removed WHERE feature_requests.id = removed.request_id RETURNING feature_requests.id
      `.pipe(orUnavailable)
      return rows.length > 0
    })

    const votedBy = Effect.fn("FeatureRequestRepository.votedBy")(function*(userId: UserId, ids: ReadonlyArray<FeatureRequestId>) {
      if (ids.length === 0) return new Set<FeatureRequestId>()
      const rows = yield* sql`
        SELECT request_id FROM feature_request_votes WHERE user_id = ${userId} AND request_id = ANY (${[...ids]}::text[])
      `.pipe(orUnavailable)
      const voted = new Set(rows.map((row) => String(row.request_id)))
      return new Set(ids.filter((id) => voted.has(id)))
    })

    const voters = Effect.fn("FeatureRequestRepository.voters")(function*(id: FeatureRequestId) {
      const rows = yield* sql`SELECT user_id FROM feature_request_votes WHERE request_id = ${id}`.pipe(Effect.flatMap(decodeUserIds), orUnavailable)
      return rows.map((row) => row.user_id)
    })

    const moveVotes = Effect.fn("FeatureRequestRepository.moveVotes")(function*(from: FeatureRequestId, into: FeatureRequestId) {
      yield* sql`
        INSERT INTO feature_request_votes (request_id, user_id, created_at)
        SELECT ${into}, user_id, created_at FROM feature_request_votes WHERE request_id = ${from}
        ON CONFLICT DO NOTHING
      `.pipe(orUnavailable)
      yield* sql`DELETE FROM feature_request_votes WHERE request_id = ${from}`.pipe(orUnavailable)
      yield* sql`
        UPDATE feature_requests f SET vote_count = (SELECT count(*) FROM feature_request_votes v WHERE v.request_id = f.id)
        WHERE f.id IN (${from}, ${into})
      `.pipe(orUnavailable)
    })

    return FeatureRequestRepository.of({
      insert,
      findById,
      findByIdempotencyKey,
      list,
      recentOpen,
      createdByAuthorSinceForCreate,
      update,
      addVote,
      removeVote,
      votedBy,
      voters,
      moveVotes
    })
  })
)
