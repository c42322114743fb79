import { Schema } from "effect"

/** What an API key may do; `write` implies every other scope. */
export const ApiKeyScope = Schema.Literals(["read", "ai_tasks:write", "webhooks:write", "schedules:write", "write"]).annotate({
  description: "API key scope. `read` is the default; `write` implies every other scope."
})
export type ApiKeyScope = typeof ApiKeyScope.Type

/** The scopes a new key gets when none are asked for. */
export const defaultScopes: ReadonlyArray<ApiKeyScope> = ["read"]
