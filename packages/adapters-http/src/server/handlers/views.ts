import type { Entitlement, ModelSpec, Workspace } from "@atrium/domain"
import { DateTime, Option } from "effect"
import type { EntitlementView } from "@atrium/client"
import type { ModelRequirementView } from "@atrium/client"
import type { WorkspaceView } from "@atrium/client"

/** A domain workspace on the wire. */
export const toWorkspaceView = (workspace: Workspace): WorkspaceView => ({
  id: workspace.id,
  name: workspace.name,
  slug: workspace.slug,
  personal: workspace.personal,
  createdAt: DateTime.formatIso(workspace.createdAt)
})

/** A domain entitlement on the wire; the workspace is implied by the caller. */
export const toEntitlementView = (entitlement: Entitlement): EntitlementView => ({
  feature: entitlement.feature,
  source: entitlement.source,
  grantedAt: DateTime.formatIso(entitlement.grantedAt),
  expiresAt: Option.getOrNull(Option.map(entitlement.expiresAt, DateTime.formatIso)),
  purchaseId: entitlement.purchaseId
})

/** A catalog entry on the wire. */
export const toModelRequirementView = (spec: ModelSpec): ModelRequirementView => ({
  model: spec.model,
  provider: spec.provider,
  requiredFeature: spec.requiredFeature,
  inputPriceMicrosPerMTok: spec.inputPriceMicrosPerMTok,
  outputPriceMicrosPerMTok: spec.outputPriceMicrosPerMTok,
  maxInputTokens: spec.maxInputTokens,
  maxOutputTokens: spec.maxOutputTokens,
  description: spec.description
})
