/** Outbound HTTP clients (`@atrium/adapters-http/outbound`): the OpenAI-compatible AI provider and its router. */
export * from "./openai-compatible-provider.ts"
export { type ExpoPushOptions, ExpoPushService } from "./expo-push-service.ts"
