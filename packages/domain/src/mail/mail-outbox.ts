import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { IdGenerator, MailMessageId, SecretBox, type Unavailable } from "../shared/index.ts"
import { type MailAddress, type MailContent, MailMessage, type MailStatus } from "./mail-message.ts"
import { MailRepository } from "./mail-repository.ts"

/** A message an area asks for; `dedupeKey` names the change (one message per change, whatever retries). */
export interface MailRequest {
  readonly dedupeKey: string
  readonly to: MailAddress
  readonly content: MailContent
  /** The one-time token of the message's link; sealed at rest and erased once the message is sent or failed. */
  readonly token: Redacted.Redacted<string>
  readonly linkExpiresAt: DateTime.Utc
}

/**
 * Port the mail area owns for the areas that mail people (identity): call `enqueue` inside the change's transaction
 * so the message exists exactly when the change commits. Events are not used for this: a message needs its one-time
 * token, which no event may carry, and password resets and verifications belong to a user, not to a workspace.
 */
export class MailOutbox extends Context.Service<MailOutbox, {
  /** The new message, or none when the change already has one (its `dedupeKey` is taken). */
  readonly enqueue: (request: MailRequest) => Effect.Effect<Option.Option<MailMessage>, Unavailable>
  /** Where the message of each change (by `dedupeKey`) stands: sent, failed for good, or still pending; absent when none. */
  readonly statusesOf: (dedupeKeys: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, MailStatus>, Unavailable>
}>()("@atrium/domain/MailOutbox") {
  static readonly layer = Layer.effect(
    MailOutbox,
    Effect.gen(function*() {
      const repo = yield* MailRepository
      const box = yield* SecretBox
      const ids = yield* IdGenerator

      const enqueue = Effect.fn("MailOutbox.enqueue")(function*(request: MailRequest) {
        const now = yield* DateTime.now
        const message = new MailMessage({
          id: MailMessageId.make(yield* ids.make("eml")),
          dedupeKey: request.dedupeKey,
          to: request.to,
          content: request.content,
          sealedToken: Option.some(yield* box.seal(request.token)),
          linkExpiresAt: Option.some(request.linkExpiresAt),
          status: "pending",
          attempts: 0,
          lastError: Option.none(),
          nextAttemptAt: Option.some(now),
          createdAt: now,
          updatedAt: now,
          sentAt: Option.none()
        })
        return (yield* repo.insert(message)) ? Option.some(message) : Option.none<MailMessage>()
      })

      return MailOutbox.of({ enqueue, statusesOf: (keys) => keys.length === 0 ? Effect.succeed(new Map()) : repo.statusesOf(keys) })
    })
  )
}
