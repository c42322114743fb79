import { InvalidSignature, Stores, StoreUnreachable } from "@atrium/domain"
import { Effect, Layer, Option } from "effect"
import type { HttpClient } from "effect/http"
import { AppleSignatures } from "./app-store/apple-jws.ts"
import { makeAppStore, type AppStoreSettings } from "./app-store/app-store.ts"
import { type AppStoreApiOptions, AppStoreServerApi, AppStoreServerApiHttp } from "./app-store/app-store-server-api.ts"
import { makeGooglePlay, type GooglePlaySettings } from "./google-play/google-play.ts"
import { GooglePushTokens } from "./google-play/google-push-token.ts"
import { PlayDeveloperApi, type PlayDeveloperApiOptions, PlayDeveloperApiHttp } from "./google-play/play-developer-api.ts"

/** The App Store as configured: its app, the Server API's key and URLs, and the trusted roots (none: Apple Root CA - G3). */
export interface AppStoreOptions extends AppStoreSettings, AppStoreApiOptions {
  readonly rootCertificates: Option.Option<string>
}

/** Google Play as configured: its app, the Developer API's service account and URLs, and what a push token must say. */
export interface GooglePlayOptions extends GooglePlaySettings, PlayDeveloperApiOptions {
  readonly pushAudience: string
  readonly pushServiceAccount: string
  readonly jwksUrl: string
}

// A store that is not configured answers without a call: nothing leaves the server for it, and a purchase of a store
// configured earlier is looked at again later (never revoked for want of an answer).
const unreachable = (store: string) => Effect.fail(new StoreUnreachable({ store, reason: "not configured" }))
const refused = (store: string) => Effect.fail(new InvalidSignature({ reason: `${store} is not configured` }))

/** `Stores` over the configured stores' adapters, each given its own APIs and signature checks. */
const layerWith = (settings: { readonly apple: Option.Option<AppStoreSettings>; readonly google: Option.Option<GooglePlaySettings> }) =>
  Layer.effect(
    Stores,
    Effect.gen(function*() {
      const apple = Option.isSome(settings.apple) ? Option.some(yield* makeAppStore(settings.apple.value)) : Option.none()
      const google = Option.isSome(settings.google) ? Option.some(yield* makeGooglePlay(settings.google.value)) : Option.none()
      return Stores.of({
        configured: (store) => store === "app_store" ? Option.isSome(apple) : Option.isSome(google),
        receive: (store, delivery) =>
          store === "app_store"
            ? Option.match(apple, { onNone: () => refused("the App Store"), onSome: (a) => a.receive(delivery) })
            : Option.match(google, { onNone: () => refused("Google Play"), onSome: (g) => g.receive(delivery) }),
        storedNotice: (store, body, receivedAt) =>
          store === "app_store"
            ? Option.match(apple, { onNone: () => refused("the App Store"), onSome: (a) => a.storedNotice(body, receivedAt) })
            : Option.match(google, { onNone: () => refused("Google Play"), onSome: (g) => g.storedNotice(body) }),
        claim: (signedTransaction) => Option.match(apple, { onNone: () => refused("the App Store"), onSome: (a) => a.claim(signedTransaction) }),
        read: (lookup) =>
          lookup.store === "app_store"
            ? Option.match(apple, { onNone: () => unreachable(lookup.store), onSome: (a) => a.read(lookup) })
            : Option.match(google, { onNone: () => unreachable(lookup.store), onSome: (g) => g.read(lookup) }),
        settle: (settlement, productId, token) =>
          Option.match(google, { onNone: () => unreachable("play_store"), onSome: (g) => g.settle(settlement, productId, token) })
      })
    })
  )

// What stands in for an unconfigured store's APIs and checks: never asked (the adapter is not built), typed away.
const appStoreUnused = Layer.mergeAll(
  Layer.succeed(AppStoreServerApi, AppStoreServerApi.of({ transaction: () => unreachable("app_store"), subscriptionStatuses: () => unreachable("app_store") })),
  Layer.succeed(AppleSignatures, AppleSignatures.of({ verify: () => refused("the App Store") }))
)
const googlePlayUnused = Layer.mergeAll(
  Layer.succeed(PlayDeveloperApi, PlayDeveloperApi.of({ subscription: () => unreachable("play_store"), product: () => unreachable("play_store"), acknowledge: () => unreachable("play_store"), consume: () => unreachable("play_store") })),
  Layer.succeed(GooglePushTokens, GooglePushTokens.of({ verify: () => refused("Google Play") }))
)

/** The stores behind the domain's `Stores` port: one adapter per store, over `HttpClient`; an unconfigured store is never called. */
export const StoresHttp = {
  layer: (options: { readonly apple: Option.Option<AppStoreOptions>; readonly google: Option.Option<GooglePlayOptions> }): Layer.Layer<Stores, never, HttpClient.HttpClient> =>
    layerWith(options).pipe(Layer.provide(Layer.mergeAll(
      Option.match(options.apple, {
        onNone: () => appStoreUnused,
        onSome: (apple) => Layer.mergeAll(AppStoreServerApiHttp.layer(apple), AppleSignatures.layer(apple.rootCertificates))
      }),
      Option.match(options.google, {
        onNone: () => googlePlayUnused,
        onSome: (google) =>
          Layer.mergeAll(
            PlayDeveloperApiHttp.layer(google),
            GooglePushTokens.layer({ audience: google.pushAudience, serviceAccountEmail: google.pushServiceAccount, jwksUrl: google.jwksUrl })
          )
      })
    ))),
  /** Over the given APIs and signature checks (tests script them). */
  layerWith
}
