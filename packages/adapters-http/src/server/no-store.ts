import { Effect, Layer } from "effect"
import { NoStore } from "../contract/security.ts"
import { respondWith } from "./request-facts.ts"

const noStore = respondWith({ "cache-control": "no-store" })

/** The `NoStore` middleware; registered first, so refusals by later middleware are marked too. */
export const NoStoreLive = Layer.succeed(NoStore, NoStore.of((httpEffect) => Effect.andThen(noStore, httpEffect)))
