/** The audit log and the event outbox on Postgres. */
export * from "./change-log-pg.ts"
