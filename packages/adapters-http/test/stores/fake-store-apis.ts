import { InvalidSignature, type StoreProduct, StoreRejected, StoreUnreachable } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { Context, Effect, Layer, Option, Redacted, Ref } from "effect"
import { AppleSignatures } from "../../src/outbound/app-store/apple-jws.ts"
import type { AppStoreSettings } from "../../src/outbound/app-store/app-store.ts"
import { type AppleSubscriptionStatus, AppStoreServerApi } from "../../src/outbound/app-store/app-store-server-api.ts"
import type { GooglePlaySettings } from "../../src/outbound/google-play/google-play.ts"
import { GooglePushTokens } from "../../src/outbound/google-play/google-push-token.ts"
import { type PlayProductPurchase, PlayDeveloperApi, type PlaySubscription } from "../../src/outbound/google-play/play-developer-api.ts"
import { StoresHttp } from "../../src/outbound/stores.ts"

/** The scripted state of the fake store APIs (in the stores' own formats): what they answer, whether they are down, what they were asked. */
export interface FakeStoreApiState {
  readonly appleTransactions: ReadonlyMap<string, string>
  readonly appleStatuses: ReadonlyMap<string, ReadonlyArray<AppleSubscriptionStatus>>
  readonly playSubscriptions: ReadonlyMap<string, PlaySubscription>
  readonly playProducts: ReadonlyMap<string, PlayProductPurchase>
  readonly down: boolean
  /** Acknowledgements that fail before one succeeds. */
  readonly ackFailures: number
  readonly ackCalls: number
  readonly consumeCalls: number
  readonly calls: number
}

/** The fake stores' script, shared by the fake App Store and Play APIs. */
export class FakeStoreApis extends Context.Service<FakeStoreApis, Ref.Ref<FakeStoreApiState>>()("@atrium/adapters-http/test/FakeStoreApis") {
  static readonly layer = Layer.effect(
    FakeStoreApis,
    Ref.make<FakeStoreApiState>({
      appleTransactions: new Map(),
      appleStatuses: new Map(),
      playSubscriptions: new Map(),
      playProducts: new Map(),
      down: false,
      ackFailures: 0,
      ackCalls: 0,
      consumeCalls: 0,
      calls: 0
    })
  )
}

const called = (state: Ref.Ref<FakeStoreApiState>, store: string) =>
  Ref.updateAndGet(state, (s) => ({ ...s, calls: s.calls + 1 })).pipe(
    Effect.flatMap((s) => s.down ? Effect.fail(new StoreUnreachable({ store, reason: "fake store down" })) : Effect.succeed(s))
  )

const found = <A>(value: A | undefined, store: string) => value === undefined ? Effect.fail(new StoreRejected({ store, status: 404 })) : Effect.succeed(value)

/** A scripted App Store Server API. */
export const AppStoreServerApiFake = Layer.effect(
  AppStoreServerApi,
  Effect.gen(function*() {
    const state = yield* FakeStoreApis
    return AppStoreServerApi.of({
      transaction: (transactionId) => called(state, "app_store").pipe(Effect.flatMap((s) => found(s.appleTransactions.get(transactionId), "app_store"))),
      subscriptionStatuses: (transactionId) =>
        called(state, "app_store").pipe(Effect.flatMap((s) => found(s.appleStatuses.get(transactionId), "app_store")))
    })
  })
)

// Settling a purchase twice is refused, as Google does (400); settling a scripted one records it in the script.
const settle = (s: FakeStoreApiState, token: string, kind: "subscription" | "product" | "consume"): [boolean, FakeStoreApiState] => {
  if (kind === "subscription") {
    const subscription = s.playSubscriptions.get(token)
    if (subscription === undefined) return [false, s]
    return [subscription.acknowledged, { ...s, playSubscriptions: new Map([...s.playSubscriptions, [token, { ...subscription, acknowledged: true }]]) }]
  }
  const product = s.playProducts.get(token)
  if (product === undefined) return [false, s]
  const done = kind === "consume" ? product.consumed : product.acknowledged
  return [done, { ...s, playProducts: new Map([...s.playProducts, [token, { ...product, acknowledged: true, consumed: product.consumed || kind === "consume" }]]) }]
}

const settleFake = (state: Ref.Ref<FakeStoreApiState>, token: string, kind: "subscription" | "product" | "consume") =>
  called(state, "play_store").pipe(
    Effect.andThen(Ref.modify(state, (s): ["fail" | "refuse" | "ok", FakeStoreApiState] => {
      const counted = kind === "consume" ? { ...s, consumeCalls: s.consumeCalls + 1 } : { ...s, ackCalls: s.ackCalls + 1 }
      if (s.ackFailures > 0) return ["fail", { ...counted, ackFailures: s.ackFailures - 1 }]
      const [already, next] = settle(counted, token, kind)
      return already ? ["refuse", counted] : ["ok", next]
    })),
    Effect.flatMap((answer): Effect.Effect<void, StoreUnreachable | StoreRejected> => {
      if (answer === "fail") return Effect.fail(new StoreUnreachable({ store: "play_store", reason: "fake acknowledge failure" }))
      return answer === "refuse" ? Effect.fail(new StoreRejected({ store: "play_store", status: 400 })) : Effect.void
    })
  )

/** A scripted Google Play Developer API (keyed by the plain purchase token). */
export const PlayDeveloperApiFake = Layer.effect(
  PlayDeveloperApi,
  Effect.gen(function*() {
    const state = yield* FakeStoreApis
    return PlayDeveloperApi.of({
      subscription: (token) =>
        called(state, "play_store").pipe(Effect.flatMap((s) => found(s.playSubscriptions.get(Redacted.value(token)), "play_store"))),
      product: (_, token) => called(state, "play_store").pipe(Effect.flatMap((s) => found(s.playProducts.get(Redacted.value(token)), "play_store"))),
      acknowledge: (kind, _, token) => settleFake(state, Redacted.value(token), kind),
      consume: (_, token) => settleFake(state, Redacted.value(token), "consume")
    })
  })
)

/** A fake signature: `fake.<base64url JSON>`; in-memory tests need no certificates (the app tests the real ones). */
export const fakeSigned = (payload: unknown): string => `fake.${btoa(JSON.stringify(payload)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "")}`

/** Apple signatures that accept `fakeSigned` payloads; these tests need no certificates (`apple-jws.test.ts` checks the real ones). */
export const AppleSignaturesFake = Layer.succeed(
  AppleSignatures,
  AppleSignatures.of({
    verify: (jws) => {
      const [prefix, body] = jws.split(".")
      if (prefix !== "fake" || body === undefined) return Effect.fail(new InvalidSignature({ reason: "not a fake signature" }))
      return Effect.try({
        try: (): unknown => JSON.parse(atob(body.replaceAll("-", "+").replaceAll("_", "/"))),
        catch: () => new InvalidSignature({ reason: "payload" })
      })
    }
  })
)

/** Push tokens: `Bearer good-push-token` passes. */
export const GooglePushTokensFake = Layer.succeed(
  GooglePushTokens,
  GooglePushTokens.of({
    verify: (authorization) => authorization === "Bearer good-push-token" ? Effect.void : Effect.fail(new InvalidSignature({ reason: "bearer token" }))
  })
)

/** The fake store APIs and signature checks, with their script. */
export const FakeStoreApisLayer = Layer.mergeAll(AppStoreServerApiFake, PlayDeveloperApiFake, AppleSignaturesFake, GooglePushTokensFake).pipe(
  Layer.provideMerge(FakeStoreApis.layer)
)

/** The stores a test configures, and the products for sale. */
export interface FakeStoreSetup {
  readonly products?: ReadonlyArray<StoreProduct> | undefined
  readonly apple?: AppStoreSettings | undefined
  readonly google?: GooglePlaySettings | undefined
}

/** The real store adapters over the fake APIs, for the stores a test configures; the script stays reachable (`FakeStoreApis`). */
export const storesOverFakes = (settings: FakeStoreSetup) =>
  StoresHttp.layerWith({ apple: Option.fromNullishOr(settings.apple), google: Option.fromNullishOr(settings.google) })

/** The whole domain in memory with the real store adapters over the fake store APIs. */
export const domainOverFakeStores = (setup: FakeStoreSetup = {}) =>
  Domain.layerMemoryWith({ stores: { products: setup.products }, replace: storesOverFakes(setup) }).pipe(Layer.provideMerge(FakeStoreApisLayer))

/** A notification as the door hands it over: the JSON body decoded, and the `Authorization` header. */
export const delivery = (body: string, authorization = "") => ({ authorization, body: JSON.parse(body) })
