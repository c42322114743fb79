/** Outbound HTTP clients (`@atrium/adapters-http/outbound`): the OpenAI-compatible AI provider and its router, the store APIs. */
export * from "./app-store-server-api.ts"
export * from "./openai-compatible-provider.ts"
export * from "./play-developer-api.ts"
export { type ExpoPushOptions, ExpoPushService } from "./expo-push-service.ts"
