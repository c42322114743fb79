import { deriveView, Entitlement, ModelSpec, Workspace } from "@atrium/domain"
import { EntitlementView } from "@atrium/client"
import { ModelRequirementView } from "@atrium/client"
import { WorkspaceView } from "@atrium/client"

/** A domain workspace on the wire. */
export const toWorkspaceView = deriveView(Workspace, WorkspaceView, { withheld: [] })

/** A domain entitlement on the wire; the workspace is implied by the caller, the source shown as the purchase behind it. */
const entitlementView = deriveView(Entitlement, EntitlementView, { withheld: ["workspaceId", "sourceRef"] })
export const toEntitlementView = (entitlement: Entitlement): EntitlementView => entitlementView(entitlement, { purchaseId: entitlement.purchaseId })

/** A catalog entry on the wire. */
export const toModelRequirementView = deriveView(ModelSpec, ModelRequirementView, { withheld: [] })
