import { CurrentPrincipal, Forbidden, isPermitted, type Permission, permits } from "@atrium/domain"
import { Context, Effect, Layer } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authorization, RequiredPermission } from "../contract/security.ts"
import { challengeFor } from "./www-authenticate.ts"

const undeclared = new Forbidden({ detail: "This operation declares no permission, so no one may call it" })

/** The permission an endpoint needs: its own annotation, else its group's. */
const permissionOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): Permission | undefined =>
  Context.get(endpoint.annotations, RequiredPermission) ?? Context.get(group.annotations, RequiredPermission)

/**
 * THE `Authorization` middleware: the domain's one policy, `permits`, applied to each endpoint's `RequiredPermission`.
 * The permission is read once per route; a permitted request costs one check, a refused one builds its answer.
 */
export const AuthorizationLive = Layer.succeed(
  Authorization,
  Authorization.of((httpEffect, { endpoint, group }) => {
    const permission = permissionOf(endpoint, group)
    // An operation that names no permission is open to no one (fail closed).
    if (permission === undefined) return Effect.fail(undeclared)
    return Effect.flatMap(Effect.service(CurrentPrincipal), (principal) =>
      isPermitted(principal, permission)
        ? httpEffect
        : Effect.andThen(permits(principal, permission).pipe(Effect.tapError(challengeFor)), httpEffect))
  })
)
