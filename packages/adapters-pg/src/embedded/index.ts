/** The embedded default: a real PostgreSQL server in the data directory, started and stopped by Atrium. */
export { EmbeddedPostgres, type EmbeddedPostgresOptions } from "./embedded-postgres.ts"
export { EmbeddedPostgresError } from "./embedded-postgres-error.ts"
