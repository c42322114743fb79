import { Cache, Context, DateTime, Duration, Effect, Exit, Layer, Option } from "effect"
import { type Acting, actorOf, type Forbidden, type InsufficientScope, isPermitted, type OperatorPrincipal, permits } from "../access/index.ts"
import { ChangeLog } from "../audit/index.ts"
import { type Conflict, InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import { IdGenerator, makeRecentValues } from "../shared/index.ts"
import { WorkspaceId } from "../shared/index.ts"
import { freeSlugFor } from "./free-slug.ts"
import { decodeInput, Transactor } from "../shared/index.ts"
import { WorkspaceRepository } from "./workspace-repository.ts"
import { Workspace, WorkspaceName, WorkspaceSlug } from "./workspace.ts"

const decodeName = decodeInput(WorkspaceName, "name")

/** What creating a workspace needs. */
export interface CreateWorkspaceInput {
  readonly name: string
  readonly slug?: string | undefined
  readonly personal?: boolean | undefined
}

const workspaceTtl = Duration.seconds(1)

/** Workspaces by id, found ones kept for one second: for reads on every request (misses are never kept). */
export const cachedWorkspaceLookup = (repo: WorkspaceRepository["Service"]) =>
  Cache.makeWith(repo.findById, {
    capacity: 10_000,
    timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? workspaceTtl : Duration.zero
  })

/** Who may not: a principal lacking the permission. */
type Refused = Forbidden | InsufficientScope

/**
 * Workspaces: the tenant boundary. Creating one needs `workspaces.create`, the operator's alone (a member's personal
 * workspace comes with sign-up); reading needs `workspace.read`, in the principal's own workspace.
 */
export class Workspaces extends Context.Service<Workspaces, {
  readonly create: (principal: Acting | OperatorPrincipal, input: CreateWorkspaceInput) => Effect.Effect<Workspace, Refused | Conflict | InvalidInput | Unavailable>
  /** The workspace the principal acts in; missing means the credential no longer leads anywhere. */
  readonly get: (principal: Acting) => Effect.Effect<Workspace, Refused | NotFound | Unavailable>
  /** How many workspaces there are (readiness and first-run seeding, not a caller's question). */
  readonly count: Effect.Effect<number, Unavailable>
}>()("@atrium/domain/Workspaces") {
  static readonly layer = Layer.effect(
    Workspaces,
    Effect.gen(function*() {
      const repo = yield* WorkspaceRepository
      const tx = yield* Transactor
      const ids = yield* IdGenerator
      const changes = yield* ChangeLog

      // The wanted slug when valid (a taken one fails on insert), else a free one derived from the name.
      const freeSlug = Effect.fnUntraced(function*(wanted: string | undefined, name: string) {
        if (wanted !== undefined) {
          const slug = WorkspaceSlug.makeOption(wanted)
          if (Option.isNone(slug)) return yield* new InvalidInput({ detail: "slug must be 2–48 lower-case letters, digits or dashes" })
          return slug.value
        }
        return yield* freeSlugFor(name).pipe(Effect.provideService(IdGenerator, ids), Effect.provideService(WorkspaceRepository, repo))
      })

      const create = Effect.fn("Workspaces.create")(function*(principal: Acting | OperatorPrincipal, input: CreateWorkspaceInput) {
        yield* permits(principal, "workspaces.create")
        const name = yield* decodeName(input.name.trim())
        const workspace = new Workspace({
          id: WorkspaceId.make(yield* ids.make("ws")),
          name,
          slug: yield* freeSlug(input.slug, name),
          personal: input.personal ?? false,
          createdAt: yield* DateTime.now
        })
        yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* repo.insert(workspace)
            yield* changes.record({ workspaceId: workspace.id, actor: actorOf(principal), action: "workspace.created", target: workspace.id })
          })
        )
        return workspace
      })

      // Every authenticated request reads its workspace; a one-second cache keeps that off the database.
      const byId = yield* cachedWorkspaceLookup(repo)
      // The same workspaces, read without an effect on the hot path (the cache still coalesces misses and refreshes).
      const recent = makeRecentValues<WorkspaceId, Workspace>(workspaceTtl, 10_000)

      const lookup = (id: WorkspaceId): Effect.Effect<Workspace, NotFound | Unavailable> =>
        Effect.clockWith((clock) => {
          const nowMillis = clock.currentTimeMillisUnsafe()
          const hit = recent.get(id, nowMillis)
          if (hit !== undefined) return Effect.succeed(hit)
          return Effect.flatMap(Cache.get(byId, id), (found) => {
            if (Option.isNone(found)) return Effect.fail(new NotFound({ resource: "workspace" }))
            recent.set(id, found.value, nowMillis)
            return Effect.succeed(found.value)
          })
        })
      // Untraced: every authenticated request calls it, and a permitted principal and a cache hit cost less than a span.
      const get = (principal: Acting): Effect.Effect<Workspace, Refused | NotFound | Unavailable> =>
        isPermitted(principal, "workspace.read")
          ? lookup(principal.workspaceId)
          : Effect.andThen(permits(principal, "workspace.read"), lookup(principal.workspaceId))

      return Workspaces.of({ create, get, count: repo.count })
    })
  )
}
