import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import { IdGenerator, SecretBox, StoreNotificationId, Unavailable } from "../shared/index.ts"
import type { Store } from "./purchase.ts"
import { refusedQuietly } from "./purchase-errors.ts"
import { NotificationInbox, StoreNotification } from "./store-notification.ts"
import { type StoreDelivery, StoreNoticeJson, Stores } from "./stores.ts"

/**
 * A store's notification at the door: verified once by its store's adapter, read into a notice, stored in the inbox
 * (deduplicated by the store's id) and answered; the worker applies it.
 */
export const makeNotificationIntake = Effect.gen(function*() {
  const inbox = yield* NotificationInbox
  const stores = yield* Stores
  const ids = yield* IdGenerator
  const box = yield* SecretBox
  const encode = Schema.encodeEffect(StoreNoticeJson)

  // A store that sends notifications to a server not configured for it is an operator's problem, not a forgery:
  // 503 (the store retries, so nothing is lost once it is configured), logged as an error where operators look.
  const notConfigured = (store: Store) =>
    Effect.logError("a store notification arrived but this server is not configured for that store; answered 503 until it is", { store }).pipe(
      Effect.andThen(Effect.fail(new Unavailable({ dependency: `${store} configuration` })))
    )

  return Effect.fn("Purchases.receive")(function*(store: Store, delivery: StoreDelivery) {
    if (!stores.configured(store)) return yield* notConfigured(store)
    const source = store === "app_store" ? "apple" : "google"
    const { externalId, notice } = yield* refusedQuietly(source, stores.receive(store, delivery))
    // Sealed: a Google notice carries a purchase token.
    const body = yield* encode(notice).pipe(Effect.orDie)
    const now = yield* DateTime.now
    yield* inbox.insert(new StoreNotification({
      id: StoreNotificationId.make(yield* ids.make("sn")),
      source,
      externalId,
      sealedBody: yield* box.seal(Redacted.make(body)),
      workspaceId: Option.none(),
      userId: Option.none(),
      receivedAt: now,
      attempts: 0,
      nextAttemptAt: Option.some(now),
      processedAt: Option.none(),
      outcome: Option.none()
    }))
  })
})
