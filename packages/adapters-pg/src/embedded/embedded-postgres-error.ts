import { Schema } from "effect"

/** The embedded PostgreSQL server could not be prepared, started, reached or stopped. */
export class EmbeddedPostgresError extends Schema.TaggedError<EmbeddedPostgresError>()("EmbeddedPostgresError", {
  message: Schema.String,
  cause: Schema.Defect()
}) {}

/** Wraps an underlying failure with a sentence a person running `npm start` can act on. */
export const failedTo = (message: string) => (cause: unknown) => new EmbeddedPostgresError({ message, cause })
