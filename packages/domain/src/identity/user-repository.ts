import { Context, type DateTime, type Effect, type Option } from "effect"
import type { EmailTaken } from "./identity-errors.ts"
import type { Unavailable } from "../shared/index.ts"
import type { UserId } from "../shared/index.ts"
import type { Email } from "./email.ts"
import type { User } from "./user.ts"

/** A user with the password hash that is stored beside it. */
export interface UserCredentials {
  readonly user: User
  readonly passwordHash: string
}

/** Port: user accounts; emails are stored normalised and are unique. */
export class UserRepository extends Context.Service<UserRepository, {
  /** Fails with `EmailTaken` when the email is already used (Postgres: unique index on `email`). */
  readonly insert: (user: User, passwordHash: string) => Effect.Effect<void, EmailTaken | Unavailable>
  readonly findByEmail: (email: Email) => Effect.Effect<Option.Option<UserCredentials>, Unavailable>
  readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>, Unavailable>
  /** Sets `emailVerifiedAt` unless already set (the first proof stands). */
  readonly markEmailVerified: (id: UserId, at: DateTime.Utc) => Effect.Effect<void, Unavailable>
  /** Replaces the stored password hash (a PHC string). */
  readonly setPasswordHash: (id: UserId, passwordHash: string) => Effect.Effect<void, Unavailable>
}>()("@atrium/domain/UserRepository") {}
