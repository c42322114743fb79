import { AiProvider, Primitives, SecretBox } from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { layerPorts } from "@atrium/adapters-pg"
import { EmbeddedPostgresTemp, PostgresTestSchema } from "@atrium/adapters-pg/testing"
import { Effect, Layer, Redacted } from "effect"
import { check, scenario } from "./scenario.ts"

// DATABASE_URL when set (in a fresh schema, dropped afterwards), else an embedded PostgreSQL server in a temp folder.
const url = process.env["DATABASE_URL"]
const client = url === undefined || url === "" ? EmbeddedPostgresTemp() : PostgresTestSchema(Redacted.make(url))

// The whole domain over the Postgres ports (migrated with the services' own secret box and digests), every outside
// system scripted in memory but the local AI provider.
const storage = layerPorts(client).pipe(Layer.provideMerge(Layer.merge(Primitives.layer, SecretBox.layerMemory)))
const domain = Domain.layerOver(storage, { replace: AiProvider.layer })

const result = await Effect.runPromise(scenario.pipe(Effect.flatMap(check), Effect.provide(domain)))
console.log(url === undefined || url === "" ? "embedded postgres:" : "postgres at DATABASE_URL:", JSON.stringify(result))
