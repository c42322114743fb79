import { ApiKeys, customDomainFeature, Entitlements, ModelCatalog, OperatorPrincipal, SystemPrincipal, Usage, Workspaces } from "@atrium/domain"
import { Console, Effect, Option, Redacted } from "effect"

// The first start acts as the operator would (audited as `system:demo-seed`).
const operator = new OperatorPrincipal({ name: "demo-seed" })

/** On a fresh embedded database: a demo workspace and one `write` key, printed once on stderr, so a newcomer can curl at once. */
export const seedDemo = Effect.fn("seedDemo")(function*(baseUrl: string) {
  const workspaces = yield* Workspaces
  if ((yield* workspaces.count) > 0) return
  const workspace = yield* workspaces.create(operator, { name: "Demo", slug: "demo" })
  const system = new SystemPrincipal({ name: operator.name, workspaceId: workspace.id })
  // The local model's feature as the catalog in use names it (a configured catalog may have none), and custom domains.
  const local = yield* (yield* ModelCatalog).find("atrium-local-1")
  for (const feature of [...Option.toArray(Option.map(local, (spec) => spec.requiredFeature)), customDomainFeature]) {
    yield* (yield* Entitlements).grant(system, { feature, source: "trial" })
  }
  // Demo credits: $5, enough for thousands of tasks on the local model.
  yield* (yield* Usage).addCredits(system, 5_000_000)
  const { plaintext } = yield* (yield* ApiKeys).create(system, { name: "demo", scopes: ["write"] })
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
