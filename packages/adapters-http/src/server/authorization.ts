import { CurrentPrincipal, Forbidden, isPermitted, type Permission, permits, type Principal } from "@atrium/domain"
import { Context, Effect, Layer } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Authorization, RequiredPermission } from "@atrium/client"
import { isPermissionCheckedAtDoor } from "./front-door.ts"
import { challengeFor } from "./www-authenticate.ts"

const undeclared = new Forbidden({ detail: "This operation declares no permission, so no one may call it" })

/** The permission an endpoint needs: its own annotation, else its group's. */
export const permissionOf = (endpoint: HttpApiEndpoint.Top, group: HttpApiGroup.Top): Permission | undefined =>
  Context.get(endpoint.annotations, RequiredPermission) ?? Context.get(group.annotations, RequiredPermission)

/**
 * The domain's one policy, `permits`, before `next`: a permitted principal costs one check, a refused one builds its
 * answer. An operation that names no permission is open to no one (fail closed).
 */
export const authorized = <A, E, R>(principal: Principal, permission: Permission | undefined, next: Effect.Effect<A, E, R>) => {
  if (permission === undefined) return Effect.fail(undeclared)
  return isPermitted(principal, permission) ? next : Effect.andThen(permits(principal, permission).pipe(Effect.tapError(challengeFor)), next)
}

/**
 * THE `Authorization` middleware: `authorized` with each endpoint's `RequiredPermission`, read once per route. Behind an
 * authentication middleware the door applies it in the same step.
 */
export const AuthorizationLive = Layer.succeed(
  Authorization,
  Authorization.of((httpEffect, { endpoint, group }) => {
    if (isPermissionCheckedAtDoor(endpoint)) return httpEffect
    const permission = permissionOf(endpoint, group)
    return Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => authorized(principal, permission, httpEffect))
  })
)
