import { Schema } from "effect"
import { SafeText, WorkspaceId } from "../shared/index.ts"

/** URL-safe workspace handle: lower-case letters, digits and single dashes. */
export const WorkspaceSlug = Schema.String.check(Schema.isPattern(/^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,47}$/))
  .annotate({ description: "URL-safe workspace handle", examples: ["acme"] })
  .pipe(Schema.brand("WorkspaceSlug"))
export type WorkspaceSlug = typeof WorkspaceSlug.Type

/** A workspace's display name as a client gives it: one trimmed line of 1–120 characters. */
export const WorkspaceName = SafeText.check(Schema.isTrimmed(), Schema.isBetweenLength(1, 120)).annotate({
  description: "Display name, 1–120 characters",
  examples: ["Acme"]
})

/** The tenant: the boundary for data, identity, entitlements, usage, billing and audit. */
export class Workspace extends Schema.Class<Workspace>("@atrium/domain/Workspace")({
  id: WorkspaceId,
  name: Schema.String.check(Schema.isBetweenLength(1, 120)),
  slug: WorkspaceSlug,
  personal: Schema.Boolean.annotate({ description: "A personal workspace is created with each account" }),
  createdAt: Schema.DateTimeUtc
}) {}

/** Derives a slug candidate from a display name. */
export const slugify = (name: string): string => {
  const base = name.normalize("NFKD").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40)
  return base.length >= 2 ? base.replace(/-+$/, "") : `ws-${base}`.replace(/-+$/, "")
}
