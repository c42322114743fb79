import { Context, type DateTime, type Effect, type Option } from "effect"
import type { MailMessageId, Unavailable } from "../shared/index.ts"
import type { MailAddress, MailMessage, MailStatus } from "./mail-message.ts"

/** Port: the mail outbox; the queue the mail senders share. */
export class MailRepository extends Context.Service<MailRepository, {
  /** Stores a new message; `false` (and nothing written) when a message with its `dedupeKey` already exists. */
  readonly insert: (message: MailMessage) => Effect.Effect<boolean, Unavailable>
  /**
   * Claims up to `limit` pending messages due at `now` and leases them until `leaseUntil` (Postgres: `FOR UPDATE SKIP
   * LOCKED`): only a crashed sender's claims come back, when their lease runs out.
   */
  readonly claimDue: (now: DateTime.Utc, limit: number, leaseUntil: DateTime.Utc) => Effect.Effect<ReadonlyArray<MailMessage>, Unavailable>
  /**
   * Records an attempt's outcome only while the stored message is still pending after `previous.attempts` attempts;
   * `false` when another sender settled it first (its lease had run out), so an outcome is never recorded twice.
   */
  readonly settle: (previous: MailMessage, next: MailMessage) => Effect.Effect<boolean, Unavailable>
  readonly findById: (id: MailMessageId) => Effect.Effect<Option.Option<MailMessage>, Unavailable>
  /** Messages to one address, newest first, at most `limit`. */
  readonly listByRecipient: (to: MailAddress, limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, Unavailable>
  /** The status of the message of each change named (by `dedupeKey`) that has one. */
  readonly statusesOf: (dedupeKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, MailStatus>, Unavailable>
  /** The messages given up on (permanent refusal or retries exhausted), most recent first (the operator's view). */
  readonly listFailed: (limit: number) => Effect.Effect<ReadonlyArray<MailMessage>, Unavailable>
}>()("@atrium/domain/MailRepository") {}
