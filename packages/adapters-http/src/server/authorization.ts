import { CurrentPrincipal, Forbidden, type Permission, permits } from "@atrium/domain"
import { Context, Effect, Layer } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authorization, RequiredPermission } from "../contract/security.ts"
import { challengeFor } from "./www-authenticate.ts"

const undeclared = new Forbidden({ detail: "This operation declares no permission, so no one may call it" })

/** The permission an endpoint needs: its own annotation, else its group's. */
const permissionOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): Permission | undefined =>
  Context.get(endpoint.annotations, RequiredPermission) ?? Context.get(group.annotations, RequiredPermission)

/** THE `Authorization` middleware: the domain's one policy, `permits`, applied to each endpoint's `RequiredPermission`. */
export const AuthorizationLive = Layer.succeed(
  Authorization,
  // Untraced on purpose: it runs on every request.
  Authorization.of(Effect.fnUntraced(function*(httpEffect, { endpoint, group }) {
    const permission = permissionOf(endpoint, group)
    // An operation that names no permission is open to no one (fail closed).
    if (permission === undefined) return yield* undeclared
    yield* permits(yield* CurrentPrincipal, permission).pipe(Effect.tapError(challengeFor))
    return yield* httpEffect
  }))
)
