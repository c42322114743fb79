import { InvalidSignature, StoreSignatures } from "@atrium/domain"
import { readFileSync } from "node:fs"
import type { X509Certificate } from "node:crypto"
import { DateTime, Effect, Layer, Option } from "effect"
import { HttpClient } from "effect/http"
import { readCertificates, verifyAppleJws } from "./apple-jws.ts"
import { makeGooglePushVerifier } from "./google-push-token.ts"
import type { StoresConfig } from "./store-config.ts"

/** Apple Root CA - G3 as shipped (SHA-256 63:34:3A:BF:…:3E:91:79, checked in the test). */
export const shippedAppleRoot = (): string => readFileSync(new URL("./apple-root-ca-g3.pem", import.meta.url), "utf8")

/** The trusted Apple roots: the configured PEM, else the shipped Apple Root CA - G3. */
export const appleRoots = (configured: Option.Option<string>): Effect.Effect<ReadonlyArray<X509Certificate>> =>
  Effect.try(() => readCertificates(Option.getOrElse(configured, shippedAppleRoot))).pipe(
    Effect.catch(() => Effect.die(new Error("ATRIUM_APPLE_ROOT_CERTIFICATES is not a PEM certificate")))
  )

/** The stores' signatures on node:crypto: App Store JWS chains to the trusted roots, Pub/Sub OIDC tokens against Google's JWKS. */
export const storeSignaturesLayer = (stores: StoresConfig): Layer.Layer<StoreSignatures, never, HttpClient.HttpClient> =>
  Layer.effect(
    StoreSignatures,
    Effect.gen(function*() {
      const roots = yield* appleRoots(Option.flatMap(stores.apple, (apple) => apple.rootCertificates))
      const google = Option.isSome(stores.google)
        ? Option.some(yield* makeGooglePushVerifier({
          audience: stores.google.value.pushAudience,
          serviceAccountEmail: stores.google.value.pushServiceAccount,
          jwksUrl: stores.google.value.jwksUrl
        }))
        : Option.none()
      return StoreSignatures.of({
        verifyApple: (jws, at) => {
          const result = verifyAppleJws(jws, roots, new Date(DateTime.toEpochMillis(at)))
          return result.ok ? Effect.succeed(result.payload) : Effect.fail(new InvalidSignature({ reason: result.reason }))
        },
        verifyGooglePush: (authorization) =>
          Option.isSome(google) ? google.value(authorization) : Effect.fail(new InvalidSignature({ reason: "Google Play is not configured" }))
      })
    })
  )
