/** The audit log and the event outbox on Postgres. */
export * from "./audit-log-pg.ts"
export * from "./event-outbox-pg.ts"
