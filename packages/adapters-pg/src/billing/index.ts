/** Billing accounts, monthly usage and usage records on Postgres. */
export * from "./billing-repository-pg.ts"
export * from "./billing-rows.ts"
