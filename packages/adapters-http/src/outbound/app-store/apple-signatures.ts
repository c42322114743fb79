import { InvalidSignature } from "@atrium/domain"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { readCertificates, verifyAppleJws } from "./apple-jws.ts"
import { appleRootCaG3 } from "./apple-root-ca-g3.ts"

/** The App Store's signatures: a JWS (notification, transaction, renewal info) verified up to a trusted Apple root at `at`. */
export class AppleSignatures extends Context.Service<AppleSignatures, {
  /** The verified JWS payload (JSON), or why not; the caller checks bundle id and environment. */
  readonly verify: (jws: string, at: DateTime.Utc) => Effect.Effect<unknown, InvalidSignature>
}>()("@atrium/adapters-http/AppleSignatures") {
  /** On node:crypto, trusting the configured PEM roots, else the shipped Apple Root CA - G3. */
  static readonly layer = (rootCertificates: Option.Option<string>): Layer.Layer<AppleSignatures> =>
    Layer.effect(
      AppleSignatures,
      Effect.try(() => readCertificates(Option.getOrElse(rootCertificates, () => appleRootCaG3))).pipe(
        Effect.catch(() => Effect.die(new Error("ATRIUM_APPLE_ROOT_CERTIFICATES is not a PEM certificate"))),
        Effect.map((roots) =>
          AppleSignatures.of({
            verify: (jws, at) => {
              const result = verifyAppleJws(jws, roots, new Date(DateTime.toEpochMillis(at)))
              return result.ok ? Effect.succeed(result.payload) : Effect.fail(new InvalidSignature({ reason: result.reason }))
            }
          })
        )
      )
    )
}
