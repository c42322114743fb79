import { type StoreEnvironment, type StoreRejected, StoreUnreachable } from "@atrium/domain"
import { Context, DateTime, Duration, Effect, Layer, Option, type Redacted, Ref, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { signJwt } from "../jwt-signer.ts"
import { storeStatusFailure, storeTransportFailure, urlPath } from "../store-failure.ts"

/** One subscription of an App Store status answer: Apple's status code with its signed transaction and renewal info. */
export interface AppleSubscriptionStatus {
  readonly originalTransactionId: string
  /** 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked. */
  readonly status: number
  readonly signedTransactionInfo: string
  readonly signedRenewalInfo: string
}

/** The App Store Server API (signed answers; the caller verifies them). */
export class AppStoreServerApi extends Context.Service<AppStoreServerApi, {
  /** `GET /inApps/v1/transactions/{transactionId}`: the transaction's `signedTransactionInfo`. */
  readonly transaction: (transactionId: string, environment: StoreEnvironment) => Effect.Effect<string, StoreUnreachable | StoreRejected>
  /** `GET /inApps/v1/subscriptions/{transactionId}`: the latest state of every subscription in its group. */
  readonly subscriptionStatuses: (
    transactionId: string,
    environment: StoreEnvironment
  ) => Effect.Effect<ReadonlyArray<AppleSubscriptionStatus>, StoreUnreachable | StoreRejected>
}>()("@atrium/adapters-http/AppStoreServerApi") {}

/** The App Store Server API credentials (an In-App Purchase key from App Store Connect) and where the API is. */
export interface AppStoreApiOptions {
  readonly issuerId: string
  readonly keyId: string
  readonly privateKey: Redacted.Redacted<string>
  readonly bundleId: string
  readonly productionUrl: string
  readonly sandboxUrl: string
  readonly timeout?: Duration.Input | undefined
}

const TransactionInfo = Schema.Struct({ signedTransactionInfo: Schema.String })
const StatusResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    lastTransactions: Schema.Array(Schema.Struct({
      originalTransactionId: Schema.String,
      status: Schema.Number,
      signedTransactionInfo: Schema.String,
      signedRenewalInfo: Schema.String
    }))
  }))
})

const store = "app_store"

/** The App Store Server API over `HttpClient`, authenticated by an ES256 JWT reused for 20 minutes. */
export const AppStoreServerApiHttp = {
  layer: (options: AppStoreApiOptions): Layer.Layer<AppStoreServerApi, never, HttpClient.HttpClient> =>
    Layer.effect(
      AppStoreServerApi,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const timeout = Duration.fromInputUnsafe(options.timeout ?? "15 seconds")
        const cached = yield* Ref.make(Option.none<{ readonly token: string; readonly until: number }>())

        const bearer = Effect.gen(function*() {
          const now = DateTime.toEpochMillis(yield* DateTime.now)
          const current = yield* Ref.get(cached)
          if (Option.isSome(current) && current.value.until > now) return current.value.token
          const iat = Math.floor(now / 1000)
          const token = yield* signJwt("ES256", options.privateKey, { kid: options.keyId }, {
            iss: options.issuerId,
            iat,
            exp: iat + 30 * 60,
            aud: "appstoreconnect-v1",
            bid: options.bundleId
          }).pipe(Effect.mapError(() => new StoreUnreachable({ store, reason: "the App Store key cannot sign" })))
          yield* Ref.set(cached, Option.some({ token, until: now + 20 * 60_000 }))
          return token
        })

        const get = <S extends Schema.Top & { readonly DecodingServices: never }>(environment: StoreEnvironment, path: string, schema: S) =>
          Effect.gen(function*() {
            const base = (environment === "production" ? options.productionUrl : options.sandboxUrl).replace(/\/+$/, "")
            const request = HttpClientRequest.get(`${base}${path}`).pipe(
              HttpClientRequest.setHeader("authorization", `Bearer ${yield* bearer}`),
              HttpClientRequest.acceptJson
            )
            const response = yield* client.execute(request).pipe(Effect.mapError(storeTransportFailure(store, "transport")))
            if (response.status !== 200) return yield* storeStatusFailure(store, response.status)
            const json = yield* response.json.pipe(Effect.mapError(storeTransportFailure(store, "malformed answer")))
            return yield* Schema.decodeUnknownEffect(schema)(json).pipe(Effect.mapError(storeTransportFailure(store, "unexpected answer")))
          }).pipe(
            Effect.timeoutOption(timeout),
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(new StoreUnreachable({ store, reason: "timeout" })), onSome: Effect.succeed }))
          )

        const transaction = Effect.fn("AppStoreServerApi.transaction")(function*(transactionId: string, environment: StoreEnvironment) {
          const answer = yield* get(environment, yield* urlPath(store, ["inApps", "v1", "transactions", transactionId]), TransactionInfo)
          return answer.signedTransactionInfo
        })

        const subscriptionStatuses = Effect.fn("AppStoreServerApi.subscriptionStatuses")(function*(transactionId: string, environment: StoreEnvironment) {
          const answer = yield* get(environment, yield* urlPath(store, ["inApps", "v1", "subscriptions", transactionId]), StatusResponse)
          return answer.data.flatMap((group) => group.lastTransactions.map((last): AppleSubscriptionStatus => ({ ...last })))
        })

        return AppStoreServerApi.of({ transaction, subscriptionStatuses })
      })
    )
}
