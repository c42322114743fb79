import { Domain } from "@atrium/domain/testing"
import { Effect } from "effect"
import { check, scenario } from "./scenario.ts"

// The whole domain over in-memory ports: what a test author swaps in for every store.
const result = await Effect.runPromise(scenario.pipe(Effect.flatMap(check), Effect.provide(Domain.layerMemory)))
console.log("memory:", JSON.stringify(result))
