import { ExpoPushService } from "@atrium/adapters-http/outbound"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer, Option } from "effect"
import type { AppConfig } from "./app-config.ts"

/** Expo push when an access token is configured; without one the domain's push stays disabled and says so. */
export const pushServiceLayer = (config: AppConfig) =>
  Option.match(config.push, {
    onNone: () => Layer.empty,
    onSome: (push) => ExpoPushService.layer(push).pipe(Layer.provide(NodeHttpClient.layerUndici))
  })
