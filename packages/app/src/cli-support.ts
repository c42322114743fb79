import { OperatorPrincipal, systemActor, SystemPrincipal, type WorkspaceId } from "@atrium/domain"
import { Effect } from "effect"
import { appConfig } from "./app-config.ts"
import { AppDomain } from "./domain-layer.ts"

/** The audit actor of operator commands. */
export const actor = systemActor("cli")

/** The operator acting in a workspace, for services that ask the acting principal's permission (audited as `system:cli`). */
export const operatorIn = (workspaceId: WorkspaceId) => new SystemPrincipal({ name: actor.id, workspaceId })

/** The operator acting across the service (creating workspaces, moderating the board, replaying store notifications). */
export const operator = new OperatorPrincipal({ name: actor.id })

/**
 * Runs an operator command against the configured database (migrated first). On the embedded default that is the
 * server already running for the data directory (beside `npm start`), or one started for the command and stopped after.
 */
export const withDomain = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(appConfig, (config) => Effect.provide(effect, AppDomain.layerWith(config)))
