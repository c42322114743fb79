export { freeSlugFor } from "./free-slug.ts"
export { WorkspaceRepository } from "./workspace-repository.ts"
export { Workspace, WorkspaceName, WorkspaceSlug } from "./workspace.ts"
export { type CreateWorkspaceInput, Workspaces } from "./workspaces.ts"
