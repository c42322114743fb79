import { Effect, Layer, Schema } from "effect"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  AcceptedCredentials,
  type HttpAppOptions,
  makeHttpAppLayer,
  RateLimiterMemory,
  RequiredPermission,
  V1Gate,
  V1Group,
  V1Handlers
} from "../src/index.ts"
import { leanGroup } from "../src/server/lean-group.ts"
import { defaultOptions, serveOverMemory } from "./harness.ts"

const Message = Schema.Struct({ message: Schema.String })

/** Test-only endpoints behind the real `/api/v1` gate: scoped writes, a validated query and a defect. */
export class TestGroup extends HttpApiGroup.make("test")
  .add(
    HttpApiEndpoint.post("echoWebhook", "/echo", { payload: Message, success: Message })
      .annotate(RequiredPermission, "webhooks.write"),
    // No permission named: no one may call it (fail closed).
    HttpApiEndpoint.post("unannotated", "/unannotated", { payload: Message, success: Message }),
    HttpApiEndpoint.get("items", "/items", {
      query: { limit: Schema.optional(Schema.FiniteFromString.check(Schema.isBetween({ minimum: 1, maximum: 100 }))) },
      success: Schema.Struct({ limit: Schema.Number })
    }).annotate(RequiredPermission, "workspace.read"),
    HttpApiEndpoint.get("defect", "/defect", { success: Message }).annotate(RequiredPermission, "workspace.read")
  )
  .annotate(AcceptedCredentials, ["api_key"])
  .middleware(V1Gate)
  .prefix("/api/v1/test")
{}

/** The real contract plus the test group. */
export class TestApi extends HttpApi.make("atrium").add(V1Group).add(TestGroup) {}

// Built like the real groups, over the middleware alone.
const TestHandlers = leanGroup(HttpApiBuilder.group(TestApi, "test", (handlers) =>
  handlers
    .handle("echoWebhook", ({ payload }) => Effect.succeed(payload))
    .handle("unannotated", ({ payload }) => Effect.succeed(payload))
    .handle("items", ({ query }) => Effect.succeed({ limit: query.limit ?? 20 }))
    .handle("defect", () => Effect.die(new Error("secret internals at /srv/atrium/db.ts:42")))))

/** The test API served like the real one. */
export const TestAppUnderTest = (options: HttpAppOptions = defaultOptions) =>
  serveOverMemory(makeHttpAppLayer(TestApi, Layer.mergeAll(V1Handlers, TestHandlers), options).pipe(Layer.provide(RateLimiterMemory)))
