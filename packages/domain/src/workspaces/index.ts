export * from "./free-slug.ts"
export * from "./workspace-repository.ts"
export * from "./workspace.ts"
export * from "./workspaces.ts"
