import { Effect, Layer } from "effect"
import { HttpEffect, HttpServerResponse } from "effect/http"
import { NoStore } from "../contract/security.ts"

const noStore = HttpEffect.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
)

/** The `NoStore` middleware; registered first, so refusals by later middleware are marked too. */
export const NoStoreLive = Layer.succeed(NoStore, NoStore.of((httpEffect) => Effect.andThen(noStore, httpEffect)))
