import { Primitives } from "@atrium/domain"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Layer, Option, type Redacted } from "effect"

/**
 * The domain's `Primitives` on `node:crypto` (`Digest` and `Mac`, synchronous `createHash` and `createHmac`: the same
 * bytes as Web Crypto's, without a promise and a thread-pool hop on every authenticated request), under the pepper.
 */
export const NodePrimitives = (pepper: Option.Option<Redacted.Redacted<string>> = Option.none()) =>
  Primitives.layerWith({ crypto: Layer.mergeAll(NodeCrypto.layerDigest, NodeCrypto.layerMac), pepper })
