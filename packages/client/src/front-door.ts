import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "effect/http-api"
import {
  AcceptedCredentials,
  Authentication,
  bearerRequired,
  Authorization,
  type CredentialKind,
  NoStore,
  RateLimit,
  RequestValidation,
  SessionAuthentication
} from "./security.ts"
import { strictPayloads } from "./strict-payloads.ts"

/*
 * The front doors of the contract: each applies, once, what every group behind it shares (strict payloads, the
 * credentials it accepts, its middleware chain, its prefix). Pipe a group through one after its last `.add`: middleware
 * and prefix reach only the endpoints added before. Middleware is listed innermost first: authentication runs
 * outermost, then the rate limit, then the permission check, request validation nearest the handler.
 */

/** In a workspace: the accepted credentials authenticated, rate limited, then checked against `RequiredPermission`. */
const workspaceRoutes = <Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>,
  accepted: ReadonlyArray<CredentialKind>
) =>
  group
    .annotate(HttpApi.PayloadParseOptions, strictPayloads)
    .annotate(AcceptedCredentials, accepted)
    .annotateEndpoints(OpenApi.Override, bearerRequired)
    .middleware(RequestValidation)
    .middleware(Authorization)
    .middleware(RateLimit)
    .middleware(Authentication)

/** `/api/v1`: API keys (and member sessions where `accepted` says so); answers may be cached by the client. */
export const v1Routes = (accepted: ReadonlyArray<CredentialKind>) =>
<Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) => workspaceRoutes(group, accepted).prefix("/api/v1")

/** `/api/mobile` in the session's active workspace: member sessions only, every answer `no-store`. */
export const memberRoutes = <Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) => workspaceRoutes(group, ["member"]).middleware(NoStore).prefix("/api/mobile")

/** Routes on the session itself, whatever its memberships (sign out, switch, join): no permission check, `no-store`. */
export const sessionRoutes = <const Prefix extends "/api/auth" | "/api/mobile">(prefix: Prefix) =>
<Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) =>
  group
    .annotate(HttpApi.PayloadParseOptions, strictPayloads)
    .annotateEndpoints(OpenApi.Override, bearerRequired)
    .middleware(RequestValidation)
    .middleware(RateLimit)
    .middleware(SessionAuthentication)
    .middleware(NoStore)
    .prefix(prefix)
