import { type StoreRejected, StoreUnreachable } from "@atrium/domain"
import { Context, DateTime, Duration, Effect, Layer, Option, Redacted, Ref, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { signJwt } from "../jwt-signer.ts"
import { storeStatusFailure, storeTransportFailure, urlPath } from "../store-failure.ts"

/** A Google Play subscription as `purchases.subscriptionsv2.get` answers it (the fields Atrium acts on). */
export interface PlaySubscription {
  /** `SUBSCRIPTION_STATE_ACTIVE`, `…_IN_GRACE_PERIOD`, `…_ON_HOLD`, `…_PAUSED`, `…_CANCELED`, `…_EXPIRED`, `…_PENDING`… */
  readonly subscriptionState: string
  readonly acknowledged: boolean
  readonly latestOrderId: string
  readonly accountToken: Option.Option<string>
  readonly test: boolean
  /** The token of the subscription this one replaced (an upgrade, downgrade or resubscription): that one is over. */
  readonly linkedPurchaseToken: Option.Option<string>
  readonly lineItems: ReadonlyArray<{ readonly productId: string; readonly expiryTime: Option.Option<string>; readonly autoRenewing: boolean }>
}

/** A Google Play one-time product purchase as `purchases.products.get` answers it. */
export interface PlayProductPurchase {
  /** 0 purchased, 1 canceled, 2 pending. */
  readonly purchaseState: number
  readonly acknowledged: boolean
  /** `consumptionState` 1: a consumable used up on the store's side (which also acknowledges it). */
  readonly consumed: boolean
  readonly orderId: string
  readonly accountToken: Option.Option<string>
  readonly test: boolean
}

/** The Google Play Developer API for the configured package. */
export class PlayDeveloperApi extends Context.Service<PlayDeveloperApi, {
  readonly subscription: (token: Redacted.Redacted<string>) => Effect.Effect<PlaySubscription, StoreUnreachable | StoreRejected>
  readonly product: (productId: string, token: Redacted.Redacted<string>) => Effect.Effect<PlayProductPurchase, StoreUnreachable | StoreRejected>
  /** Acknowledges a subscription or a one-time product purchase. */
  readonly acknowledge: (
    kind: "subscription" | "product",
    productId: string,
    token: Redacted.Redacted<string>
  ) => Effect.Effect<void, StoreUnreachable | StoreRejected>
  /** `purchases.products.consume`: a consumable used up, so the buyer can buy it again; it acknowledges it too. */
  readonly consume: (productId: string, token: Redacted.Redacted<string>) => Effect.Effect<void, StoreUnreachable | StoreRejected>
}>()("@atrium/adapters-http/PlayDeveloperApi") {}

/** The Google Play Developer API: the app's package, a service account allowed to read its purchases, and the endpoints. */
export interface PlayDeveloperApiOptions {
  readonly packageName: string
  readonly serviceAccountEmail: string
  readonly privateKey: Redacted.Redacted<string>
  readonly tokenUrl: string
  readonly apiUrl: string
  readonly timeout?: Duration.Input | undefined
}

const TokenAnswer = Schema.Struct({ access_token: Schema.String, expires_in: Schema.optional(Schema.Number) })
const SubscriptionAnswer = Schema.Struct({
  subscriptionState: Schema.String,
  acknowledgementState: Schema.optional(Schema.String),
  latestOrderId: Schema.optional(Schema.String),
  testPurchase: Schema.optional(Schema.Unknown),
  linkedPurchaseToken: Schema.optional(Schema.String),
  externalAccountIdentifiers: Schema.optional(Schema.Struct({ obfuscatedExternalAccountId: Schema.optional(Schema.String) })),
  lineItems: Schema.optional(Schema.Array(Schema.Struct({
    productId: Schema.String,
    expiryTime: Schema.optional(Schema.String),
    autoRenewingPlan: Schema.optional(Schema.Struct({ autoRenewEnabled: Schema.optional(Schema.Boolean) }))
  })))
})
const ProductAnswer = Schema.Struct({
  purchaseState: Schema.optional(Schema.Number),
  acknowledgementState: Schema.optional(Schema.Number),
  consumptionState: Schema.optional(Schema.Number),
  orderId: Schema.optional(Schema.String),
  purchaseType: Schema.optional(Schema.Number),
  obfuscatedExternalAccountId: Schema.optional(Schema.String)
})

const store = "play_store"
const scope = "https://www.googleapis.com/auth/androidpublisher"

/** The Google Play Developer API over `HttpClient`: a service-account JWT is exchanged for an OAuth token, cached until near expiry. */
export const PlayDeveloperApiHttp = {
  layer: (options: PlayDeveloperApiOptions): Layer.Layer<PlayDeveloperApi, never, HttpClient.HttpClient> =>
    Layer.effect(
      PlayDeveloperApi,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const timeout = Duration.fromInputUnsafe(options.timeout ?? "15 seconds")
        const cached = yield* Ref.make(Option.none<{ readonly token: Redacted.Redacted<string>; readonly until: number }>())
        const base = `${options.apiUrl.replace(/\/+$/, "")}/androidpublisher/v3/applications/${encodeURIComponent(options.packageName)}/purchases`

        const withTimeout = <A, E>(effect: Effect.Effect<A, E>) =>
          effect.pipe(
            Effect.timeoutOption(timeout),
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(new StoreUnreachable({ store, reason: "timeout" })), onSome: Effect.succeed }))
          )

        const accessToken = Effect.gen(function*() {
          const now = DateTime.toEpochMillis(yield* DateTime.now)
          const current = yield* Ref.get(cached)
          if (Option.isSome(current) && current.value.until > now) return current.value.token
          const iat = Math.floor(now / 1000)
          const assertion = yield* signJwt("RS256", options.privateKey, {}, {
            iss: options.serviceAccountEmail,
            scope,
            aud: options.tokenUrl,
            iat,
            exp: iat + 3600
          }).pipe(Effect.mapError(() => new StoreUnreachable({ store, reason: "the service account key cannot sign" })))
          const request = HttpClientRequest.post(options.tokenUrl).pipe(
            HttpClientRequest.acceptJson,
            HttpClientRequest.bodyUrlParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion })
          )
          const response = yield* client.execute(request).pipe(Effect.mapError(storeTransportFailure(store, "token transport")))
          if (response.status !== 200) return yield* new StoreUnreachable({ store, reason: `token status ${response.status}` })
          const json = yield* response.json.pipe(Effect.mapError(storeTransportFailure(store, "token answer")))
          const answer = yield* Schema.decodeUnknownEffect(TokenAnswer)(json).pipe(Effect.mapError(storeTransportFailure(store, "token answer")))
          const token = Redacted.make(answer.access_token)
          yield* Ref.set(cached, Option.some({ token, until: now + Math.max(60, (answer.expires_in ?? 3600) - 60) * 1000 }))
          return token
        }).pipe(withTimeout)

        const call = <S extends Schema.Top & { readonly DecodingServices: never }>(
          method: "GET" | "POST",
          segments: ReadonlyArray<string>,
          schema: S,
          verb = ""
        ) =>
          Effect.gen(function*() {
            const path = yield* urlPath(store, segments, verb)
            const token = yield* accessToken
            const request = (method === "GET" ? HttpClientRequest.get(`${base}${path}`) : HttpClientRequest.post(`${base}${path}`)).pipe(
              HttpClientRequest.bearerToken(token),
              HttpClientRequest.acceptJson
            )
            const response = yield* client.execute(method === "POST" ? HttpClientRequest.bodyText(request, "{}", "application/json") : request).pipe(
              Effect.mapError(storeTransportFailure(store, "transport"))
            )
            if (response.status === 401) yield* Ref.set(cached, Option.none())
            if (response.status < 200 || response.status >= 300) return yield* storeStatusFailure(store, response.status)
            const text = yield* response.text.pipe(Effect.mapError(storeTransportFailure(store, "malformed answer")))
            return yield* Schema.decodeUnknownEffect(Schema.fromJsonString(schema))(text === "" ? "{}" : text).pipe(
              Effect.mapError(storeTransportFailure(store, "unexpected answer"))
            )
          }).pipe(withTimeout)


        const subscription = Effect.fn("PlayDeveloperApi.subscription")(function*(token: Redacted.Redacted<string>) {
          const answer = yield* call("GET", ["subscriptionsv2", "tokens", Redacted.value(token)], SubscriptionAnswer)
          const result: PlaySubscription = {
            subscriptionState: answer.subscriptionState,
            acknowledged: answer.acknowledgementState === "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
            latestOrderId: answer.latestOrderId ?? "",
            accountToken: Option.fromNullishOr(answer.externalAccountIdentifiers?.obfuscatedExternalAccountId),
            test: answer.testPurchase !== undefined,
            linkedPurchaseToken: Option.fromNullishOr(answer.linkedPurchaseToken),
            lineItems: (answer.lineItems ?? []).map((item) => ({
              productId: item.productId,
              expiryTime: Option.fromNullishOr(item.expiryTime),
              autoRenewing: item.autoRenewingPlan?.autoRenewEnabled === true
            }))
          }
          return result
        })

        const product = Effect.fn("PlayDeveloperApi.product")(function*(productId: string, token: Redacted.Redacted<string>) {
          const answer = yield* call("GET", ["products", productId, "tokens", Redacted.value(token)], ProductAnswer)
          const result: PlayProductPurchase = {
            purchaseState: answer.purchaseState ?? -1,
            acknowledged: answer.acknowledgementState === 1,
            consumed: answer.consumptionState === 1,
            orderId: answer.orderId ?? "",
            accountToken: Option.fromNullishOr(answer.obfuscatedExternalAccountId),
            test: answer.purchaseType === 0
          }
          return result
        })

        const acknowledge = Effect.fn("PlayDeveloperApi.acknowledge")(
          function*(kind: "subscription" | "product", productId: string, token: Redacted.Redacted<string>) {
            const collection = kind === "subscription" ? "subscriptions" : "products"
            yield* call("POST", [collection, productId, "tokens", Redacted.value(token)], Schema.Struct({}), ":acknowledge")
          }
        )

        const consume = Effect.fn("PlayDeveloperApi.consume")(function*(productId: string, token: Redacted.Redacted<string>) {
          yield* call("POST", ["products", productId, "tokens", Redacted.value(token)], Schema.Struct({}), ":consume")
        })

        return PlayDeveloperApi.of({ subscription, product, acknowledge, consume })
      })
    )
}
