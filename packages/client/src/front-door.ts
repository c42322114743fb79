import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "effect/http-api"
import { AcceptedCredentials, bearerRequired, type CredentialKind, MobileGate, PublicGate, SessionGate, V1Gate } from "./security.ts"
import { strictPayloads } from "./strict-payloads.ts"

/*
 * The front doors of the contract: each applies, once, what every group behind it shares (strict payloads, the
 * credentials it accepts, its one gate, its prefix). Pipe a group through one after its last `.add`: the gate and the
 * prefix reach only the endpoints added before. What a gate runs, in order, is written on its class (security.ts).
 */

/** `/api/v1`: API keys (and member sessions where `accepted` says so) through `V1Gate`; answers may be cached. */
export const v1Routes = (accepted: ReadonlyArray<CredentialKind>) =>
<Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) =>
  group
    .annotate(HttpApi.PayloadParseOptions, strictPayloads)
    .annotate(AcceptedCredentials, accepted)
    .annotateEndpoints(OpenApi.Override, bearerRequired)
    .middleware(V1Gate)
    .prefix("/api/v1")

/** `/api/mobile` in the session's active workspace: member sessions through `MobileGate`, every answer `no-store`. */
export const memberRoutes = <Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) =>
  group
    .annotate(HttpApi.PayloadParseOptions, strictPayloads)
    .annotateEndpoints(OpenApi.Override, bearerRequired)
    .middleware(MobileGate)
    .prefix("/api/mobile")

/** Routes on the session itself, whatever its memberships (sign out, switch, join): `SessionGate`, `no-store`. */
export const sessionRoutes = <const Prefix extends "/api/auth" | "/api/mobile">(prefix: Prefix) =>
<Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) =>
  group
    .annotate(HttpApi.PayloadParseOptions, strictPayloads)
    .annotateEndpoints(OpenApi.Override, bearerRequired)
    .middleware(SessionGate)
    .prefix(prefix)

/** Routes that take no bearer credential (signing in, the mailed links, store notifications): `PublicGate`, `no-store`. */
export const publicRoutes = <const Prefix extends "/api/auth" | "/api/store-notifications">(prefix: Prefix) =>
<Id extends string, Endpoints extends HttpApiEndpoint.Constraint, TopLevel extends boolean>(
  group: HttpApiGroup.HttpApiGroup<Id, Endpoints, TopLevel>
) => group.middleware(PublicGate).prefix(prefix)
