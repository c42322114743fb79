import { Effect, Option } from "effect"
import { IdGenerator } from "../shared/index.ts"
import { WorkspaceRepository } from "./workspace-repository.ts"
import { slugify, WorkspaceSlug } from "./workspace.ts"

/** A free slug for a workspace named `name`: the name's own when free, else with a random suffix; never fails. */
export const freeSlugFor = Effect.fn("freeSlugFor")(function*(name: string) {
  const ids = yield* IdGenerator
  const base = slugify(name).slice(0, 40)
  const bare = WorkspaceSlug.makeOption(base)
  if (Option.isSome(bare) && Option.isNone(yield* (yield* WorkspaceRepository).findBySlug(bare.value))) return bare.value
  const suffix = (yield* ids.make("ws")).slice(3, 11).toLowerCase()
  // 38 + 1 + 8 characters stays within the slug's 48; `ws-<suffix>` is the always-valid last resort.
  const suffixed = WorkspaceSlug.makeOption(`${base.slice(0, 38).replace(/-+$/, "")}-${suffix}`)
  return Option.getOrElse(suffixed, () => WorkspaceSlug.make(`ws-${suffix}`))
})
