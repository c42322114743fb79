import { OperatorPrincipal, SessionPrincipal, SystemPrincipal } from "../access/index.ts"
import { SessionId, UserId, type WorkspaceId } from "../shared/index.ts"

/** An owner's session in `workspaceId`, for tests and tools that call domain services as a trusted member. */
export const ownerPrincipal = (workspaceId: WorkspaceId): SessionPrincipal =>
  new SessionPrincipal({ sessionId: SessionId.make("ses_test"), userId: UserId.make("usr_test"), workspaceId, role: "owner" })

/** The system acting in `workspaceId` as `name` (an operator command, a worker), for tests and tools. */
export const systemPrincipal = (workspaceId: WorkspaceId, name = "test"): SystemPrincipal => new SystemPrincipal({ name, workspaceId })

/** The operator acting across the service (creating workspaces, moderating the board), for tests and tools. */
export const operatorPrincipal = (name = "test"): OperatorPrincipal => new OperatorPrincipal({ name })
