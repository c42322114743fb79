import { Api, makeAtriumClient, MobileSessionClient, SecureStore } from "@atrium/client"
import { Effect } from "effect"

// Type-checked only: the typed client of the contract, as a browser or React Native app would build it.
export const workspaceName = Effect.gen(function*() {
  const client = yield* makeAtriumClient({ baseUrl: "https://atrium.example.com", token: Effect.succeed("sk_test_example") })
  const workspace = yield* client.v1.getCurrentWorkspace()
  return workspace.name
})

export { Api, MobileSessionClient, SecureStore }
