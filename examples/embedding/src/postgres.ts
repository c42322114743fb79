import { AiProvider, AiServices, DomainServices, IdentityServices, ModelCatalog, Primitives, SecretBox } from "@atrium/domain"
import { PasswordHasherMemory, WebhookTransportMemory } from "@atrium/domain/testing"
import { layerPorts } from "@atrium/adapters-pg"
import { EmbeddedPostgresTemp, PostgresTestSchema } from "@atrium/adapters-pg/testing"
import { Effect, Layer, Redacted } from "effect"
import { check, scenario } from "./scenario.ts"

// DATABASE_URL when set (in a fresh schema, dropped afterwards), else an embedded PostgreSQL server in a temp folder.
const url = process.env["DATABASE_URL"]
const client = url === undefined || url === "" ? EmbeddedPostgresTemp() : PostgresTestSchema(Redacted.make(url))

const domain = Layer.mergeAll(DomainServices, AiServices, IdentityServices).pipe(
  Layer.provideMerge(layerPorts(client)),
  Layer.provideMerge(Layer.mergeAll(Primitives(), ModelCatalog.layer, SecretBox.layerRandom, AiProvider.layerLocal, WebhookTransportMemory, PasswordHasherMemory))
)

const result = await Effect.runPromise(scenario.pipe(Effect.flatMap(check), Effect.provide(domain)))
console.log(url === undefined || url === "" ? "embedded postgres:" : "postgres at DATABASE_URL:", JSON.stringify(result))
