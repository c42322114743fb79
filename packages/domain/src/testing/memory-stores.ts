import { Context, Effect, Layer, Option, Redacted, Ref, Schema } from "effect"
import { InvalidInput } from "../shared/index.ts"
import {
  InvalidSignature,
  type PurchaseClaim,
  type ReceivedNotice,
  type Settlement,
  type StoreObservation,
  StoreNotice,
  type Store,
  StoreRejected,
  Stores,
  StoreUnreachable
} from "../purchases/index.ts"

/** The scripted state of the fake stores, in the domain's words: what they answer, whether they are down, what they were asked. */
export interface FakeStoreState {
  /** Claims by the signed transaction a client sends. */
  readonly claims: ReadonlyMap<string, PurchaseClaim>
  /** Current states by original transaction id (App Store) or plain purchase token (Google Play). */
  readonly purchases: ReadonlyMap<string, StoreObservation>
  /** Tokens of the purchases each Google purchase replaced, by its own plain token. */
  readonly replaced: ReadonlyMap<string, string>
  readonly down: boolean
  /** Settlements that fail before one succeeds. */
  readonly ackFailures: number
  readonly ackCalls: number
  readonly consumeCalls: number
  readonly calls: number
}

/** The fake stores' script. */
export class FakeStores extends Context.Service<FakeStores, Ref.Ref<FakeStoreState>>()("@atrium/domain/testing/FakeStores") {
  static readonly layer = Layer.effect(
    FakeStores,
    Ref.make<FakeStoreState>({ claims: new Map(), purchases: new Map(), replaced: new Map(), down: false, ackFailures: 0, ackCalls: 0, consumeCalls: 0, calls: 0 })
  )
}

const ReceivedJson = Schema.fromJsonString(Schema.toCodecJson(Schema.Struct({ externalId: Schema.String, notice: StoreNotice })))

/** A notification the fake stores accept: a `fake.` body carrying the notice itself. */
export const fakeNotice = (received: ReceivedNotice): { readonly authorization: string; readonly body: unknown } => ({
  authorization: "Bearer good-push-token",
  body: `fake.${Schema.encodeSync(ReceivedJson)(received)}`
})

const called = (state: Ref.Ref<FakeStoreState>, store: string) =>
  Ref.updateAndGet(state, (s) => ({ ...s, calls: s.calls + 1 })).pipe(
    Effect.flatMap((s) => s.down ? Effect.fail(new StoreUnreachable({ store, reason: "fake store down" })) : Effect.succeed(s))
  )

/**
 * Scripted stores, selling through the `configured` ones: notifications are `fakeNotice` bodies, claims and purchases what the script holds; settling a
 * purchase twice is refused (400) as Google does, and a settlement is recorded on the scripted purchase.
 */
export const StoresMemory = (configured: ReadonlyArray<Store>) => Layer.effect(
  Stores,
  Effect.gen(function*() {
    const state = yield* FakeStores
    return Stores.of({
      configured: (store) => configured.includes(store),
      receive: (_, delivery) => {
        if (typeof delivery.body !== "string" || !delivery.body.startsWith("fake.")) return Effect.fail(new InvalidSignature({ reason: "not a fake signature" }))
        return Schema.decodeUnknownEffect(ReceivedJson)(delivery.body.slice(5)).pipe(Effect.mapError(() => new InvalidInput({ detail: "not a notice" })))
      },
      storedNotice: () => Effect.fail(new InvalidInput({ detail: "no stored notices in memory" })),
      claim: (signed) =>
        Ref.get(state).pipe(Effect.flatMap((s) => {
          const claim = s.claims.get(signed)
          return claim === undefined ? Effect.fail(new InvalidSignature({ reason: "unknown claim" })) : Effect.succeed(claim)
        })),
      read: (lookup) =>
        called(state, lookup.store).pipe(Effect.flatMap((s) => {
          const key = lookup.store === "play_store" ? Redacted.value(lookup.token) : lookup.storeRef
          const found = s.purchases.get(key)
          if (found === undefined) return Effect.fail(new StoreRejected({ store: lookup.store, status: 404 }))
          return Effect.succeed({ observation: { ...found, storeRef: lookup.storeRef }, replacedToken: Option.map(Option.fromNullishOr(s.replaced.get(key)), Redacted.make) })
        })),
      settle: (settlement: Settlement, _, token) =>
        called(state, "play_store").pipe(
          Effect.andThen(Ref.modify(state, (s): ["fail" | "refuse" | "ok", FakeStoreState] => {
            const counted = settlement === "consume" ? { ...s, consumeCalls: s.consumeCalls + 1 } : { ...s, ackCalls: s.ackCalls + 1 }
            if (s.ackFailures > 0) return ["fail", { ...counted, ackFailures: s.ackFailures - 1 }]
            const found = s.purchases.get(Redacted.value(token))
            if (found === undefined) return ["ok", counted]
            if (found.acknowledged) return ["refuse", counted]
            return ["ok", { ...counted, purchases: new Map([...s.purchases, [Redacted.value(token), { ...found, acknowledged: true }]]) }]
          })),
          Effect.flatMap((answer): Effect.Effect<void, StoreUnreachable | StoreRejected> => {
            if (answer === "fail") return Effect.fail(new StoreUnreachable({ store: "play_store", reason: "fake acknowledge failure" }))
            return answer === "refuse" ? Effect.fail(new StoreRejected({ store: "play_store", status: 400 })) : Effect.void
          })
        )
    })
  })
).pipe(Layer.provideMerge(FakeStores.layer))
