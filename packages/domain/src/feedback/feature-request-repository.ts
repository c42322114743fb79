import { Context, type DateTime, type Effect, type Option } from "effect"
import type { FeatureRequestId, Page, PageRequest, Unavailable, UserId } from "../shared/index.ts"
import type { FeatureRequest, FeatureRequestStatus } from "./feature-request.ts"

/** How the board is sorted: most votes first, or newest first. */
export type FeatureRequestSort = "top" | "new"

/** Port: the public feature-request board and its votes (one per user and request). */
export class FeatureRequestRepository extends Context.Service<FeatureRequestRepository, {
  /** Stores a new request, remembering the author's `Idempotency-Key` when one was sent. */
  readonly insert: (request: FeatureRequest, idempotencyKey: Option.Option<string>) => Effect.Effect<void, Unavailable>
  readonly findById: (id: FeatureRequestId) => Effect.Effect<Option.Option<FeatureRequest>, Unavailable>
  /** The request an author created with this `Idempotency-Key`, if any. */
  readonly findByIdempotencyKey: (authorId: UserId, key: string) => Effect.Effect<Option.Option<FeatureRequest>, Unavailable>
  readonly list: (filter: { readonly status: FeatureRequestStatus | undefined; readonly sort: FeatureRequestSort }, page: PageRequest) => Effect.Effect<Page<FeatureRequest>, Unavailable>
  /** Up to `limit` titles of requests not merged away, newest first: the candidates for duplicate detection. */
  readonly recentOpen: (limit: number) => Effect.Effect<ReadonlyArray<FeatureRequest>, Unavailable>
  /**
   * When the author created each request since `since`, oldest first (the daily limit). Call it inside the creating
   * transaction: it serialises the author's submissions until that transaction ends (Postgres: an advisory lock per
   * author), so two concurrent submissions cannot both see room for one more.
   */
  readonly createdByAuthorSinceForCreate: (authorId: UserId, since: DateTime.Utc) => Effect.Effect<ReadonlyArray<DateTime.Utc>, Unavailable>
  /** Saves a status change (not the vote count, which the vote operations keep). */
  readonly update: (request: FeatureRequest) => Effect.Effect<void, Unavailable>
  /** Adds the user's vote; false when it was already there. Keeps the vote count in step. */
  readonly addVote: (id: FeatureRequestId, userId: UserId, at: DateTime.Utc) => Effect.Effect<boolean, Unavailable>
  /** Removes the user's vote; false when there was none. Keeps the vote count in step. */
  readonly removeVote: (id: FeatureRequestId, userId: UserId) => Effect.Effect<boolean, Unavailable>
  /** Which of `ids` the user has voted for. */
  readonly votedBy: (userId: UserId, ids: ReadonlyArray<FeatureRequestId>) => Effect.Effect<ReadonlySet<FeatureRequestId>, Unavailable>
  readonly voters: (id: FeatureRequestId) => Effect.Effect<ReadonlyArray<UserId>, Unavailable>
  /** Moves every vote of `from` to `into` (a user who voted on both keeps one) and recounts both. */
  readonly moveVotes: (from: FeatureRequestId, into: FeatureRequestId) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/FeatureRequestRepository") {}
