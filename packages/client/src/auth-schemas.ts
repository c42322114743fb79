import { SafeText, SessionId, UserId, WorkspaceId } from "@atrium/domain"
import { Schema } from "effect"
import { NextCursor } from "./page-query.ts"
import { WorkspaceView } from "./workspace-view.ts"

const isoTime = (description: string) =>
  Schema.String.annotate({ format: "date-time", description: `${description}, ISO-8601 UTC`, examples: ["2026-01-31T12:00:00.000Z"] })

// Bounds only what the wire carries (and the one safe-text rule); the domain applies the real rules (address shape,
// 10–256 character passwords).
const EmailField = SafeText.check(Schema.isBetweenLength(1, 254)).annotate({ description: "Email address", examples: ["ada@example.com"] })
const PasswordField = SafeText.check(Schema.isBetweenLength(1, 1024)).annotate({
  description: "Password; at sign-up 10–256 characters (NFKC-normalised)",
  format: "password"
})

/** `POST /api/auth/sign-up`. */
export const SignUpRequest = Schema.Struct({
  email: EmailField,
  password: PasswordField,
  name: SafeText.check(Schema.isBetweenLength(1, 100)).annotate({ description: "Display name, 1–100 characters", examples: ["Ada Lovelace"] })
}).annotate({ identifier: "SignUpRequest", description: "A new account; unknown fields are refused" })

/** `POST /api/auth/sign-in`. */
export const SignInRequest = Schema.Struct({
  email: EmailField,
  password: PasswordField
}).annotate({ identifier: "SignInRequest" })

/** `POST /api/auth/refresh`. */
export const RefreshRequest = Schema.Struct({
  refreshToken: SafeText.check(Schema.isBetweenLength(1, 256)).annotate({ description: "The refresh token (`rt_…`) of the latest rotation" })
}).annotate({ identifier: "RefreshRequest" })

/** A user account as its owner sees it. */
export const UserView = Schema.Struct({
  id: UserId,
  email: Schema.String.annotate({ description: "Normalised (trimmed, lower-case) email", examples: ["ada@example.com"] }),
  name: Schema.String,
  createdAt: isoTime("Creation time"),
  emailVerified: Schema.Boolean.annotate({ description: "Whether the owner opened a verification (or password-reset) link sent to `email`" })
}).annotate({ identifier: "User" })
export type UserView = typeof UserView.Type

/** The contract's `session`: both tokens, in plaintext only in this answer. */
export const SessionTokens = Schema.Struct({
  accessToken: Schema.String.annotate({ description: "Bearer token for `/api/mobile` and `/api/auth` (`at_…`)" }),
  accessTokenExpiresAt: isoTime("When the access token stops working (then refresh)"),
  refreshToken: Schema.String.annotate({ description: "Single-use token for `POST /api/auth/refresh` (`rt_…`); presenting a used one ends the session" }),
  refreshTokenExpiresAt: isoTime("When the refresh token lapses unless rotated")
}).annotate({ identifier: "SessionTokens", description: "A member session's tokens; store them in the platform keychain" })
export type SessionTokens = typeof SessionTokens.Type

/** 201 of sign-up. */
export const SignedUpView = Schema.Struct({
  user: UserView,
  workspace: WorkspaceView.annotate({ description: "The personal workspace created with the account" }),
  session: SessionTokens
}).annotate({ identifier: "SignedUp" })

/** 200 of sign-in. */
export const SignedInView = Schema.Struct({ user: UserView, session: SessionTokens }).annotate({ identifier: "SignedIn" })

/** 200 of refresh. */
export const RefreshedView = Schema.Struct({ session: SessionTokens }).annotate({ identifier: "Refreshed" })

/** `GET /api/auth/session`. */
export const CurrentSessionView = Schema.Struct({
  user: UserView,
  session: Schema.Struct({
    id: SessionId,
    expiresAt: isoTime("When the session lapses unless its refresh token is rotated"),
    accessTokenExpiresAt: isoTime("When the presented access token stops working")
  }),
  activeWorkspaceId: WorkspaceId
}).annotate({ identifier: "CurrentSession" })

/** One live session of the user. */
export const SessionSummaryView = Schema.Struct({
  id: SessionId,
  activeWorkspaceId: WorkspaceId,
  createdAt: isoTime("Sign-in time"),
  lastUsedAt: isoTime("Last use (to within a minute)"),
  expiresAt: isoTime("When it lapses unless refreshed"),
  userAgent: Schema.NullOr(Schema.String),
  current: Schema.Boolean.annotate({ description: "Whether this is the session asking" })
}).annotate({ identifier: "SessionSummary" })
export type SessionSummaryView = typeof SessionSummaryView.Type

/** The user's live sessions, most recently used first (one page: `nextCursor` is always `null`). */
export const SessionList = Schema.Struct({
  data: Schema.Array(SessionSummaryView),
  nextCursor: NextCursor
}).annotate({ identifier: "SessionList" })

const TokenField = (description: string) => SafeText.check(Schema.isBetweenLength(1, 256)).annotate({ description })

/** `POST /api/auth/verify-email`. */
export const VerifyEmailRequest = Schema.Struct({
  token: TokenField("The token from the verification link (`ev_…`, after `#token=`)")
}).annotate({ identifier: "VerifyEmailRequest" })

/** `POST /api/auth/password-reset`. */
export const PasswordResetRequest = Schema.Struct({ email: EmailField }).annotate({ identifier: "PasswordResetRequest" })

/** `POST /api/auth/password-reset/confirm`. */
export const PasswordResetConfirmRequest = Schema.Struct({
  token: TokenField("The token from the reset link (`pr_…`, after `#token=`)"),
  password: PasswordField
}).annotate({ identifier: "PasswordResetConfirmRequest" })
