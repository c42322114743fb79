/** Workspaces on Postgres. */
export * from "./workspace-repository-pg.ts"
