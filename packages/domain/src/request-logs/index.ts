export { RequestLogEntry, type RequestLogFilter, type RequestLogRecord } from "./request-log-entry.ts"
export { RequestLogRepository } from "./request-log-repository.ts"
export { RequestLogs } from "./request-logs.ts"
