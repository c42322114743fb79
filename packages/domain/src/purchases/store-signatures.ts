import { Context, type DateTime, type Effect } from "effect"
import type { Unavailable } from "../shared/index.ts"
import type { InvalidSignature } from "./purchase-errors.ts"

/**
 * Port: the stores' signatures, checked with real cryptography in the app (node:crypto). Apple: an ES256 JWS whose
 * `x5c` chain of three leads to a configured Apple root, with Apple's marker OIDs on leaf and intermediate, valid at
 * `at`. Google: a Pub/Sub push's OIDC bearer token, signed by a key of Google's JWKS, with the configured audience and
 * service-account email.
 */
export class StoreSignatures extends Context.Service<StoreSignatures, {
  /** The verified JWS payload (JSON), or why not; the caller checks bundle id and environment. */
  readonly verifyApple: (jws: string, at: DateTime.Utc) => Effect.Effect<unknown, InvalidSignature>
  /** Checks the `Authorization` header of a Pub/Sub push; a JWKS that cannot be fetched is `Unavailable`, never a 401. */
  readonly verifyGooglePush: (authorization: string) => Effect.Effect<void, InvalidSignature | Unavailable>
}>()("@atrium/domain/StoreSignatures") {}
