import { type StoreEnvironment, type StoreProduct, StoreProductsJson } from "@atrium/domain"
import { Config, Option, Redacted, Schema } from "effect"

/** The App Store: bundle, accepted environments, the In-App Purchase key for the Server API, its URLs, the trusted roots. */
export interface AppleConfig {
  readonly bundleId: string
  readonly environments: ReadonlyArray<StoreEnvironment>
  readonly issuerId: string
  readonly keyId: string
  readonly privateKey: Redacted.Redacted<string>
  readonly productionUrl: string
  readonly sandboxUrl: string
  /** PEM of the trusted roots; none: the Apple Root CA - G3 shipped with the server. */
  readonly rootCertificates: Option.Option<string>
}

/** Google Play: package, the service account for the Developer API, its URLs, and what a Pub/Sub push token must say. */
export interface GoogleConfig {
  readonly packageName: string
  readonly serviceAccountEmail: string
  readonly privateKey: Redacted.Redacted<string>
  readonly tokenUrl: string
  readonly apiUrl: string
  readonly pushAudience: string
  readonly pushServiceAccount: string
  readonly jwksUrl: string
}

/** The stores as configured; a store whose settings are incomplete is not configured (and never called). */
export interface StoresConfig {
  readonly products: ReadonlyArray<StoreProduct>
  readonly apple: Option.Option<AppleConfig>
  readonly google: Option.Option<GoogleConfig>
}

const ServiceAccountKey = Schema.Struct({ client_email: Schema.String, private_key: Schema.String, token_uri: Schema.optional(Schema.String) })

const environments = Config.String("ATRIUM_APPLE_ENVIRONMENTS").pipe(
  Config.withDefault("production"),
  Config.map((text) => text.split(",").map((part) => part.trim()).filter((part): part is StoreEnvironment => part === "production" || part === "sandbox"))
)

const apple = Config.all({
  bundleId: Config.option(Config.String("ATRIUM_APPLE_BUNDLE_ID")),
  issuerId: Config.option(Config.String("ATRIUM_APPLE_ISSUER_ID")),
  keyId: Config.option(Config.String("ATRIUM_APPLE_KEY_ID")),
  privateKey: Config.option(Config.Redacted("ATRIUM_APPLE_PRIVATE_KEY")),
  environments,
  productionUrl: Config.String("ATRIUM_APPLE_API_URL").pipe(Config.withDefault("https://api.storekit.itunes.apple.com")),
  sandboxUrl: Config.String("ATRIUM_APPLE_SANDBOX_API_URL").pipe(Config.withDefault("https://api.storekit-sandbox.itunes.apple.com")),
  rootCertificates: Config.option(Config.String("ATRIUM_APPLE_ROOT_CERTIFICATES"))
}).pipe(Config.map((c) =>
  Option.map(Option.all({ bundleId: c.bundleId, issuerId: c.issuerId, keyId: c.keyId, privateKey: c.privateKey }), (required): AppleConfig => ({
    ...required,
    environments: c.environments,
    productionUrl: c.productionUrl,
    sandboxUrl: c.sandboxUrl,
    rootCertificates: c.rootCertificates
  }))
))

const google = Config.all({
  packageName: Config.option(Config.String("ATRIUM_GOOGLE_PACKAGE_NAME")),
  serviceAccount: Config.option(Config.schema(Schema.RedactedFromValue(Schema.fromJsonString(ServiceAccountKey)), "ATRIUM_GOOGLE_SERVICE_ACCOUNT")),
  apiUrl: Config.String("ATRIUM_GOOGLE_API_URL").pipe(Config.withDefault("https://androidpublisher.googleapis.com")),
  tokenUrl: Config.option(Config.String("ATRIUM_GOOGLE_TOKEN_URL")),
  pushAudience: Config.option(Config.String("ATRIUM_GOOGLE_PUSH_AUDIENCE")),
  pushServiceAccount: Config.option(Config.String("ATRIUM_GOOGLE_PUSH_SERVICE_ACCOUNT")),
  jwksUrl: Config.String("ATRIUM_GOOGLE_JWKS_URL").pipe(Config.withDefault("https://www.googleapis.com/oauth2/v3/certs"))
}).pipe(Config.map((c) =>
  Option.map(
    Option.all({ packageName: c.packageName, serviceAccount: c.serviceAccount, pushAudience: c.pushAudience, pushServiceAccount: c.pushServiceAccount }),
    (required): GoogleConfig => {
      const key = Redacted.value(required.serviceAccount)
      return {
        packageName: required.packageName,
        serviceAccountEmail: key.client_email,
        privateKey: Redacted.make(key.private_key, { label: "GoogleServiceAccountKey" }),
        tokenUrl: Option.getOrElse(c.tokenUrl, () => key.token_uri ?? "https://oauth2.googleapis.com/token"),
        apiUrl: c.apiUrl,
        pushAudience: required.pushAudience,
        pushServiceAccount: required.pushServiceAccount,
        jwksUrl: c.jwksUrl
      }
    }
  )
))

/** `ATRIUM_STORE_PRODUCTS`, `ATRIUM_APPLE_*`, `ATRIUM_GOOGLE_*` (documented in the README). */
export const storesConfig: Config.Config<StoresConfig> = Config.all({
  products: Config.option(Config.schema(Schema.fromJsonString(StoreProductsJson), "ATRIUM_STORE_PRODUCTS")).pipe(
    Config.map(Option.getOrElse((): ReadonlyArray<StoreProduct> => []))
  ),
  apple,
  google
})

/** No store configured, nothing for sale. */
export const noStores: StoresConfig = { products: [], apple: Option.none(), google: Option.none() }
