import { Effect, Layer } from "effect"
import { NoStore } from "@atrium/client"
import { isBehindDoor } from "./front-door.ts"
import { respondWith } from "./request-facts.ts"

/** The header of a response that carries tokens or per-member data. */
export const noStoreHeaders: Record<string, string> = { "cache-control": "no-store" }

const noStore = respondWith(noStoreHeaders)

/** The `NoStore` middleware; registered first, so refusals by later middleware are marked too (by the door, behind one). */
export const NoStoreLive = Layer.succeed(
  NoStore,
  NoStore.of((httpEffect, { endpoint }) => isBehindDoor(endpoint) ? httpEffect : Effect.andThen(noStore, httpEffect))
)
