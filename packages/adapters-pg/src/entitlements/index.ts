/** Entitlements on Postgres. */
export * from "./entitlement-repository-pg.ts"
