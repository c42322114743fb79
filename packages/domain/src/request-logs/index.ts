export * from "./request-log-entry.ts"
export * from "./request-log-repository.ts"
export * from "./request-logs.ts"
