import { type Email, emailKey, EmailTaken, type Unavailable, User, type UserCredentials, type UserId, UserRepository } from "@atrium/domain"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { UserCredentialsRow, UserRow } from "./identity-rows.ts"
import { orUnavailable, sqlFailure } from "../shared/sql-errors.ts"

const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(UserRow))
const decodeCredentials = Schema.decodeUnknownEffect(Schema.Array(UserCredentialsRow))

// Named in the migration, so a taken email is told apart from a duplicate id (a bug).
const emailConstraint = "users_email_key_unique"

/** Postgres users: unique by `email_key` (the address compared without case), the password hash (a PHC string) beside the user. */
export const UserRepositoryPg = Layer.effect(
  UserRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const insert = Effect.fn("UserRepository.insert")(function*(user: User, passwordHash: string) {
      yield* sql`
        INSERT INTO users (id, email, email_key, name, password_hash, created_at, email_verified_at)
        VALUES (${user.id}, ${user.email}, ${emailKey(user.email)}, ${user.name}, ${passwordHash}, ${DateTime.toDateUtc(user.createdAt)},
          ${Option.getOrNull(Option.map(user.emailVerifiedAt, DateTime.toDateUtc))})
      `.pipe(
        Effect.catch((error: SqlError): Effect.Effect<never, EmailTaken | Unavailable> =>
          error.reason._tag === "UniqueViolation" && error.reason.constraint === emailConstraint
            ? Effect.fail(new EmailTaken())
            : sqlFailure(error)
        )
      )
    })

    const findByEmail = Effect.fn("UserRepository.findByEmail")(function*(email: Email) {
      const rows = yield* sql`SELECT id, email, name, created_at, email_verified_at, password_hash FROM users WHERE email_key = ${emailKey(email)}`.pipe(
        Effect.flatMap(decodeCredentials),
        orUnavailable
      )
      return Option.map(Option.fromNullishOr(rows[0]), ({ passwordHash, ...user }): UserCredentials => ({ user: new User(user), passwordHash }))
    })

    const findById = Effect.fn("UserRepository.findById")(function*(id: UserId) {
      const rows = yield* sql`SELECT id, email, name, created_at, email_verified_at FROM users WHERE id = ${id}`.pipe(Effect.flatMap(decodeUsers), orUnavailable)
      return Option.map(Option.fromNullishOr(rows[0]), (row) => new User(row))
    })

    // COALESCE keeps the first proof's time.
    const markEmailVerified = Effect.fn("UserRepository.markEmailVerified")(function*(id: UserId, at: DateTime.Utc) {
      yield* sql`UPDATE users SET email_verified_at = COALESCE(email_verified_at, ${DateTime.toDateUtc(at)}) WHERE id = ${id}`.pipe(orUnavailable)
    })

    const setPasswordHash = Effect.fn("UserRepository.setPasswordHash")(function*(id: UserId, passwordHash: string) {
      yield* sql`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${id}`.pipe(orUnavailable)
    })

    return UserRepository.of({ insert, findByEmail, findById, markEmailVerified, setPasswordHash })
  })
)
