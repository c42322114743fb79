import { ApiKeys, customDomainFeature, Entitlements, ModelCatalog, systemActor, SystemPrincipal, Usage, Workspaces } from "@atrium/domain"
import { Console, Effect, Option, Redacted } from "effect"

const actor = systemActor("demo-seed")

/** On a fresh embedded database: a demo workspace and one `write` key, printed once on stderr, so a newcomer can curl at once. */
export const seedDemo = Effect.fn("seedDemo")(function*(baseUrl: string) {
  const workspaces = yield* Workspaces
  if ((yield* workspaces.count) > 0) return
  const workspace = yield* workspaces.create({ name: "Demo", slug: "demo", actor })
  // The local model's feature as the catalog in use names it (a configured catalog may have none), and custom domains.
  const local = yield* (yield* ModelCatalog).find("atrium-local-1")
  for (const feature of [...Option.toArray(Option.map(local, (spec) => spec.requiredFeature)), customDomainFeature]) {
    yield* (yield* Entitlements).grant({ workspaceId: workspace.id, feature, source: "trial", actor })
  }
  // Demo credits: $5, enough for thousands of tasks on the local model.
  yield* (yield* Usage).addCredits(workspace.id, 5_000_000, actor)
  const { plaintext } = yield* (yield* ApiKeys).create(new SystemPrincipal({ name: actor.id, workspaceId: workspace.id }), { name: "demo", scopes: ["write"] })
  // Printed once on stderr, apart from the JSON log lines on stdout, and never logged: it is the only copy of the key.
  yield* Console.error(
    [
      "",
      "  First start: created workspace \"Demo\" (entitled to the local model and custom domains, $5 of demo credits) and an API key with scope `write`.",
      "  It is shown this once; store it now:",
      "",
      `    ${Redacted.value(plaintext)}`,
      "",
      `  curl -H "Authorization: Bearer ${Redacted.value(plaintext)}" ${baseUrl}/api/v1/workspaces/current`,
      ""
    ].join("\n")
  )
})
