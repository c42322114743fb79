import { AiProviderRouter, OpenAiCompatibleProvider } from "@atrium/adapters-http/outbound"
import { AiProvider } from "@atrium/domain"
import { Layer, Option } from "effect"
import { FetchHttpClient } from "effect/http"
import type { AppConfig } from "./app-config.ts"

/** The local model always; the OpenAI-compatible provider when a base URL and key are configured (the key stays in the server). */
export const aiProviderLayer = (config: AppConfig) =>
  AiProviderRouter.layerWith({
    local: AiProvider.layer,
    openaiCompatible: Option.map(config.openai, (openai) =>
      OpenAiCompatibleProvider.layerWith({ baseUrl: openai.baseUrl, apiKey: openai.apiKey, timeout: openai.timeout }).pipe(
        Layer.provide(FetchHttpClient.layer)
      ))
  })
