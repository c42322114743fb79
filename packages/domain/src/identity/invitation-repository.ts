import { Context, type Effect, type Option } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { InvitationId, WorkspaceId } from "../shared/index.ts"
import type { Invitation } from "./invitation.ts"
import type { Page, PageRequest } from "../shared/index.ts"

/** Port: workspace invitations, found by id within a workspace or by their token's digest. */
export class InvitationRepository extends Context.Service<InvitationRepository, {
  readonly insert: (invitation: Invitation) => Effect.Effect<void, Unavailable>
  /** Only within `workspaceId`: another workspace's invitation is `None`. */
  readonly findById: (workspaceId: WorkspaceId, id: InvitationId) => Effect.Effect<Option.Option<Invitation>, Unavailable>
  /** Called inside the accepting transaction; Postgres locks the row (`FOR UPDATE`) so a token is accepted once. */
  readonly findByTokenDigest: (digest: string) => Effect.Effect<Option.Option<Invitation>, Unavailable>
  /** Newest first. */
  readonly listByWorkspace: (workspaceId: WorkspaceId, page: PageRequest) => Effect.Effect<Page<Invitation>, Unavailable>
  /** Replaces the stored invitation (same id and workspace). */
  readonly update: (invitation: Invitation) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/InvitationRepository") {}
