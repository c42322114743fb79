/** AI tasks, their queue and idempotency keys on Postgres. */
export * from "./ai-rows.ts"
export * from "./ai-task-repository-pg.ts"
