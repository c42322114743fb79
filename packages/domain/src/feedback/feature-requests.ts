import { Context, DateTime, Duration, Effect, Layer, Option, Result } from "effect"
import { type Acting, actorOf, type Forbidden, memberOf, type OperatorPrincipal, permits, type SessionPrincipal } from "../access/index.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { UserRepository } from "../identity/index.ts"
import {
  type Actor,
  FeatureRequestId,
  IdGenerator,
  IdempotencyKeyReused,
  type InvalidInput,
  NotFound,
  type Page,
  type PageRequest,
  RateLimited,
  Transactor,
  type Unavailable
} from "../shared/index.ts"
import { FeatureRequest, type FeatureRequestStatus } from "./feature-request.ts"
import { FeatureRequestRepository, type FeatureRequestSort } from "./feature-request-repository.ts"
import { FeedbackEvents } from "./feedback-events.ts"
import { duplicateThreshold, titleSimilarity } from "./title-similarity.ts"

/** A request as one viewer sees it. */
export interface FeatureRequestForViewer {
  readonly request: FeatureRequest
  readonly viewerHasVoted: boolean
}

/** An existing request whose title looks like a new one's. */
export interface PossibleDuplicate {
  readonly request: FeatureRequest
  readonly similarity: number
}

/** What creating a request answers: the request and the existing ones it may duplicate. */
export interface CreatedFeatureRequest extends FeatureRequestForViewer {
  readonly possibleDuplicates: ReadonlyArray<PossibleDuplicate>
}

/** How many requests one user may submit in any 24 hours. */
export const dailyRequestLimit = 10
const limitWindow = Duration.hours(24)
// Enough recent titles to find duplicates without scanning the whole board.
const duplicateCandidates = 500

const toStatusChanged = (before: FeatureRequest, after: FeatureRequest) => ({
  featureRequest: { id: after.id, title: after.title, status: after.status },
  previousStatus: before.status,
  note: Option.getOrNull(after.statusNote),
  mergedInto: Option.getOrNull(after.mergedInto),
  changedAt: DateTime.formatIso(after.statusChangedAt)
})

/** The public feature-request board: members submit and vote; operators change status and merge. */
export class FeatureRequests extends Context.Service<FeatureRequests, {
  readonly list: (
    principal: Acting,
    filter: { readonly status: FeatureRequestStatus | undefined; readonly sort: FeatureRequestSort },
    page: PageRequest
  ) => Effect.Effect<Page<FeatureRequestForViewer>, Forbidden | Unavailable>
  readonly get: (principal: Acting, id: FeatureRequestId) => Effect.Effect<FeatureRequestForViewer, Forbidden | NotFound | Unavailable>
  /** Submits a request (replayed for the same `Idempotency-Key`); at most 10 per user in any 24 hours. */
  readonly create: (
    principal: Acting,
    input: { readonly title: string; readonly details: string },
    idempotencyKey: Option.Option<string>
  ) => Effect.Effect<CreatedFeatureRequest, Forbidden | RateLimited | IdempotencyKeyReused | Unavailable>
  /** Idempotent: voting twice counts once. */
  readonly vote: (principal: Acting, id: FeatureRequestId) => Effect.Effect<FeatureRequestForViewer, Forbidden | NotFound | Unavailable>
  /** Idempotent: removing a vote that is not there changes nothing. */
  readonly unvote: (principal: Acting, id: FeatureRequestId) => Effect.Effect<FeatureRequestForViewer, Forbidden | NotFound | Unavailable>
  /** Operator: a new status with an optional note; emits `feature_request.status_changed` to the author's workspace. */
  readonly changeStatus: (
    principal: OperatorPrincipal,
    id: FeatureRequestId,
    status: Exclude<FeatureRequestStatus, "merged">,
    note: Option.Option<string>
  ) => Effect.Effect<FeatureRequest, Forbidden | NotFound | InvalidInput | Unavailable>
  /** Operator: folds `id` into `into`, moving its votes (a user who voted on both counts once). */
  readonly merge: (principal: OperatorPrincipal, id: FeatureRequestId, into: FeatureRequestId) => Effect.Effect<FeatureRequest, Forbidden | NotFound | InvalidInput | Unavailable>
}>()("@atrium/domain/FeatureRequests") {
  static readonly layer = Layer.effect(
    FeatureRequests,
    Effect.gen(function*() {
      const repo = yield* FeatureRequestRepository
      const users = yield* UserRepository
      const tx = yield* Transactor
      const ids = yield* IdGenerator
      const changes = yield* ChangeLog

      const find = Effect.fnUntraced(function*(id: FeatureRequestId) {
        const found = yield* repo.findById(id)
        if (Option.isNone(found)) return yield* new NotFound({ resource: "feature_request" })
        return found.value
      })

      const forViewer = Effect.fnUntraced(function*(principal: SessionPrincipal, request: FeatureRequest) {
        const voted = yield* repo.votedBy(principal.userId, [request.id])
        return { request, viewerHasVoted: voted.has(request.id) }
      })

      const possibleDuplicates = Effect.fnUntraced(function*(request: FeatureRequest) {
        const candidates = yield* repo.recentOpen(duplicateCandidates)
        return candidates
          .filter((candidate) => candidate.id !== request.id)
          .map((candidate) => ({ request: candidate, similarity: titleSimilarity(request.title, candidate.title) }))
          .filter((match) => match.similarity >= duplicateThreshold)
          .sort((a, b) => b.similarity - a.similarity || b.request.voteCount - a.request.voteCount)
          .slice(0, 5)
      })

      const list = Effect.fn("FeatureRequests.list")(function*(
        acting: Acting,
        filter: { readonly status: FeatureRequestStatus | undefined; readonly sort: FeatureRequestSort },
        page: PageRequest
      ) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        const found = yield* repo.list(filter, page)
        const voted = yield* repo.votedBy(principal.userId, found.data.map((request) => request.id))
        return { data: found.data.map((request) => ({ request, viewerHasVoted: voted.has(request.id) })), nextCursor: found.nextCursor }
      })

      const get = Effect.fn("FeatureRequests.get")(function*(acting: Acting, id: FeatureRequestId) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "workspace.read")
        return yield* forViewer(principal, yield* find(id))
      })

      // Over the limit: refused until the oldest request of the window ages out.
      const overLimit = (recent: ReadonlyArray<DateTime.Utc>, now: DateTime.Utc) => {
        const oldest = recent[0]
        if (recent.length < dailyRequestLimit || oldest === undefined) return Option.none<RateLimited>()
        const freesAt = DateTime.addDuration(oldest, limitWindow)
        return Option.some(new RateLimited({
          detail: `At most ${dailyRequestLimit} feature requests a day`,
          limit: dailyRequestLimit,
          windowSeconds: Math.ceil(Duration.toSeconds(limitWindow)),
          retryAfter: Math.max(1, Math.ceil((DateTime.toEpochMillis(freesAt) - DateTime.toEpochMillis(now)) / 1000))
        }))
      }

      const create = Effect.fn("FeatureRequests.create")(function*(
        acting: Acting,
        input: { readonly title: string; readonly details: string },
        idempotencyKey: Option.Option<string>
      ) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "feature_requests.submit")
        const author = yield* users.findById(principal.userId)
        const now = yield* DateTime.now
        const request = new FeatureRequest({
          id: FeatureRequestId.make(yield* ids.make("fr")),
          workspaceId: principal.workspaceId,
          authorId: principal.userId,
          authorName: Option.match(author, { onNone: () => "A member", onSome: (user) => user.name }),
          title: input.title,
          details: input.details,
          status: "open",
          statusNote: Option.none(),
          mergedInto: Option.none(),
          voteCount: 0,
          createdAt: now,
          statusChangedAt: now
        })
        // The count, the replay check and the insert share one transaction, serialised per author: concurrent
        // submissions take turns, so none slips past the limit and a repeated key replays instead of racing.
        const stored = yield* tx.withTransaction(Effect.gen(function*() {
          const recent = yield* repo.createdByAuthorSinceForCreate(principal.userId, DateTime.subtractDuration(now, limitWindow))
          if (Option.isSome(idempotencyKey)) {
            const earlier = yield* repo.findByIdempotencyKey(principal.userId, idempotencyKey.value)
            if (Option.isSome(earlier)) {
              if (earlier.value.title !== input.title || earlier.value.details !== input.details) return yield* new IdempotencyKeyReused()
              return { request: earlier.value, replayed: true }
            }
          }
          const refused = overLimit(recent, now)
          if (Option.isSome(refused)) return yield* refused.value
          yield* repo.insert(request, idempotencyKey)
          yield* changes.record({
            workspaceId: request.workspaceId,
            actor: { type: "user", id: principal.userId },
            action: "feature_request.created",
            target: request.id,
            event: emit(FeedbackEvents.created, { featureRequest: { id: request.id, title: request.title, status: request.status } })
          })
          return { request, replayed: false }
        }))
        const viewed = stored.replayed ? yield* forViewer(principal, stored.request) : { request: stored.request, viewerHasVoted: false }
        return { ...viewed, possibleDuplicates: yield* possibleDuplicates(stored.request) }
      })

      const vote = Effect.fn("FeatureRequests.vote")(function*(acting: Acting, id: FeatureRequestId) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "feature_requests.submit")
        const request = yield* find(id)
        if (request.status === "merged") return yield* forViewer(principal, request)
        yield* repo.addVote(id, principal.userId, yield* DateTime.now)
        return yield* forViewer(principal, yield* find(id))
      })

      const unvote = Effect.fn("FeatureRequests.unvote")(function*(acting: Acting, id: FeatureRequestId) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "feature_requests.submit")
        yield* find(id)
        yield* repo.removeVote(id, principal.userId)
        return yield* forViewer(principal, yield* find(id))
      })

      const recordStatusChange = (before: FeatureRequest, after: FeatureRequest, actor: Actor, action: string) =>
        changes.record({
          workspaceId: after.workspaceId,
          actor,
          action,
          target: after.id,
          event: emit(FeedbackEvents.statusChanged, toStatusChanged(before, after))
        })

      const changeStatus = Effect.fn("FeatureRequests.changeStatus")(function*(
        principal: OperatorPrincipal,
        id: FeatureRequestId,
        status: Exclude<FeatureRequestStatus, "merged">,
        note: Option.Option<string>
      ) {
        yield* permits(principal, "feature_requests.moderate")
        const actor = actorOf(principal)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const before = yield* find(id)
          const after = yield* Result.match(before.changeStatus(status, note, yield* DateTime.now), { onFailure: Effect.fail, onSuccess: Effect.succeed })
          yield* repo.update(after)
          yield* recordStatusChange(before, after, actor, "feature_request.status_changed")
          return after
        }))
      })

      const merge = Effect.fn("FeatureRequests.merge")(function*(principal: OperatorPrincipal, id: FeatureRequestId, into: FeatureRequestId) {
        yield* permits(principal, "feature_requests.moderate")
        const actor = actorOf(principal)
        return yield* tx.withTransaction(Effect.gen(function*() {
          const before = yield* find(id)
          const target = yield* find(into)
          const after = yield* Result.match(before.mergeInto(target, yield* DateTime.now), { onFailure: Effect.fail, onSuccess: Effect.succeed })
          // The voters are notified before their votes move, so the change reaches the voters of the merged request.
          yield* repo.update(after)
          yield* recordStatusChange(before, after, actor, "feature_request.merged")
          yield* repo.moveVotes(id, into)
          return yield* find(id)
        }))
      })

      return FeatureRequests.of({ list, get, create, vote, unvote, changeStatus, merge })
    })
  )
}
