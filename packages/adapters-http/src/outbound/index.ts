/** Outbound clients (`@atrium/adapters-http/outbound`): the AI providers and their router, the stores, Expo's push service. */
export * from "./openai-compatible-provider.ts"
export { type AppStoreOptions, type GooglePlayOptions, StoresHttp } from "./stores.ts"
export { type ExpoPushOptions, ExpoPushService } from "./expo/expo-push-service.ts"
