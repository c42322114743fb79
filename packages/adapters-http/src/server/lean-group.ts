import { Context, Effect, Layer } from "effect"
import { MobileGate, PublicGate, SessionGate, V1Gate } from "@atrium/client"

/** What a route may read from its group's context while it serves a request: the gates, nothing of the domain. */
export type RequestTimeServices = V1Gate | MobileGate | SessionGate | PublicGate

const requestTime = Context.pick(V1Gate, MobileGate, SessionGate, PublicGate)

/**
 * Builds a handlers group over the gates alone. Every request merges its route's captured context into its own,
 * and a group built in the app's context captured the ~80 domain services: that copy was the largest allocation of a
 * cached read. Handlers take their domain services when the group is built (`Layer.unwrap`), so the group itself
 * needs nothing else — the type says so, and a handler that reaches for a domain service per request does not compile.
 */
export const leanGroup = <A, E, R extends RequestTimeServices>(group: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.fromBuild((memoMap, scope) => Effect.updateContext(Layer.buildWithMemoMap(group, memoMap, scope), requestTime))
