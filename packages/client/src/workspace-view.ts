import { Schema } from "effect"

/** The workspace a key acts in, as `GET /api/v1/workspaces/current` answers it. */
export const WorkspaceView = Schema.Struct({
  id: Schema.String.annotate({ description: "Workspace identifier", examples: ["ws_4xQ9aZ1b7HkP0mVcT3sLeR"] }),
  name: Schema.String.annotate({ description: "Display name", examples: ["Acme"] }),
  slug: Schema.String.annotate({ description: "URL-safe workspace handle", examples: ["acme"] }),
  personal: Schema.Boolean.annotate({ description: "Whether this is the personal workspace created with an account" }),
  createdAt: Schema.String.annotate({ description: "Creation time, ISO-8601 UTC", examples: ["2026-01-31T12:00:00.000Z"] })
}).annotate({
  identifier: "Workspace",
  description: "A workspace: the boundary for data, identity, entitlements, usage, billing and audit"
})
export type WorkspaceView = typeof WorkspaceView.Type
