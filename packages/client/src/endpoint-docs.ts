import { OpenApi } from "effect/http-api"

/** An endpoint's OpenAPI summary and description: every group documents its operations the same way. */
export const docs = (summary: string, description: string) => OpenApi.annotations({ summary, description })
