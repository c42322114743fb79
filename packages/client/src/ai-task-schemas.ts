import { AiTaskView } from "@atrium/domain"
import { Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/** The `Idempotency-Key` request header: 1–255 visible ASCII characters. */
export const IdempotencyKey = Schema.String.check(Schema.isPattern(/^[\x21-\x7E]{1,255}$/)).annotate({
  description: "Any 1–255 visible ASCII characters. Within 24 h, the same key and body answer with the first task " +
    "(and `Idempotent-Replayed: true`); the same key with another body is 409 `idempotency_key_reused`",
  examples: ["order-4711"]
})

/** 202 with the queued task; `Idempotent-Replayed: true` when an idempotent retry answers the first task again. */
export const AiTaskAccepted = HttpApiSchema.WithHeaders(AiTaskView.pipe(HttpApiSchema.status(202)), {
  "idempotent-replayed": Schema.optional(Schema.Literal("true").annotate({
    description: "Present when this answer replays the first submission with the same `Idempotency-Key`"
  }))
})
