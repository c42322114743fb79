/** API keys on Postgres. */
export * from "./api-key-repository-pg.ts"
