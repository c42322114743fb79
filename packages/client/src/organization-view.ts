import { MembershipId, Role, WorkspaceId } from "@atrium/domain"
import { Schema } from "effect"
import { WorkspaceView } from "./workspace-view.ts"

/** One workspace of the user and their role in it. */
export const WorkspaceMembershipView = Schema.Struct({
  workspace: WorkspaceView,
  role: Role,
  membershipId: MembershipId
}).annotate({ identifier: "WorkspaceMembership" })

/** `GET /api/mobile/organization`: the active workspace (null when the member was removed from it) and every membership. */
export const OrganizationView = Schema.Struct({
  workspace: Schema.NullOr(WorkspaceView).annotate({ description: "The active workspace; `null` once the member was removed from it (switch to another)" }),
  role: Schema.NullOr(Role),
  memberships: Schema.Array(WorkspaceMembershipView),
  features: Schema.Struct({
    push: Schema.Boolean.annotate({ description: "Whether this server sends push notifications (a push credential is configured)" })
  })
}).annotate({ identifier: "Organization" })

/** `PUT /api/mobile/organization/active`. */
export const SwitchWorkspaceRequest = Schema.Struct({
  workspaceId: WorkspaceId.annotate({ description: "A workspace the user belongs to; any other is 404" })
}).annotate({ identifier: "SwitchWorkspace" })
