import { NotFound, WorkspaceId, WorkspaceRepository, WorkspaceSlug } from "@atrium/domain"
import { Effect, Option } from "effect"
import { Flag } from "effect/cli"

/** A workspace named by id (`ws_…`) or slug. */
export const resolveWorkspace = Effect.fn("resolveWorkspace")(function*(ref: string) {
  const repo = yield* WorkspaceRepository
  const byId = Option.getOrUndefined(WorkspaceId.makeOption(ref))
  const found = byId !== undefined
    ? yield* repo.findById(byId)
    : Option.isSome(WorkspaceSlug.makeOption(ref))
    ? yield* repo.findBySlug(WorkspaceSlug.make(ref))
    : Option.none()
  if (Option.isNone(found)) return yield* new NotFound({ resource: "workspace" })
  return found.value
})

/** `--workspace`: an id or a slug. */
export const workspaceFlag = Flag.String("workspace").pipe(Flag.withDescription("Workspace id (ws_…) or slug"))
