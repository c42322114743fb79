import { Schema } from "effect"
import { defineEvent } from "../audit/index.ts"
import { ApiKeyView } from "./api-key-view.ts"

/** Events of the keys area. */
export const ApiKeyEvents = {
  created: defineEvent("api_key.created", "An API key was created in the workspace (its secret is never included).", Schema.Struct({ apiKey: ApiKeyView })),
  revoked: defineEvent("api_key.revoked", "An API key was revoked; it stops working at once.", Schema.Struct({ apiKey: ApiKeyView })),
  rolled: defineEvent(
    "api_key.rolled",
    "An API key was rolled: a new key with the same name and scopes replaces it; the old one works until its `expiresAt` (the grace).",
    Schema.Struct({ apiKey: ApiKeyView, previous: ApiKeyView })
  )
}
