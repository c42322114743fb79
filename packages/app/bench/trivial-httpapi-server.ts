// The framework's ceiling: a trivial Effect HttpApi endpoint (no middleware, no envelope) answering the same JSON as
// GET /api/v1/workspaces/current, decoded once and encoded by its schema on every request.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { createServer } from "node:http"
import { Workspace, workspace } from "./workspace-body.ts"

class Trivial extends HttpApiGroup.make("trivial").add(HttpApiEndpoint.get("workspace", "/", { success: Workspace })) {}
class TrivialApi extends HttpApi.make("trivial").add(Trivial) {}

const Handlers = HttpApiBuilder.group(TrivialApi, "trivial", (handlers) => handlers.handle("workspace", () => Effect.succeed(workspace)))

// The bench waits for this line, like the bare server's.
const announce = Layer.effectDiscard(Effect.gen(function*() {
  const address = (yield* HttpServer.HttpServer).address
  yield* Effect.sync(() => process.stdout.write(`listening ${"port" in address ? address.port : 0}\n`))
}))

const Server = Layer.mergeAll(
  HttpRouter.serve(HttpApiBuilder.layer(TrivialApi).pipe(Layer.provide(Handlers)), { disableLogger: true, disableListenLog: true }),
  announce
).pipe(Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })))

Layer.launch(Server).pipe(NodeRuntime.runMain)
