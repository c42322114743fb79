/** Shared Postgres plumbing: SQL errors as Unavailable, keyset pages, bigint columns, transactions. */
export * from "./bigint-columns.ts"
export * from "./keyset-page.ts"
export * from "./sql-errors.ts"
export * from "./snake-case-columns.ts"
export * from "./sql-values.ts"
export * from "./table-reads.ts"
export * from "./transactor-pg.ts"
export * from "./work-wakeups.ts"
