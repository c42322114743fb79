import { Context, Effect, Layer, Ref } from "effect"
import { type TransportRequest, type TransportResult, WebhookTransport } from "../webhooks/index.ts"

/** What the in-memory transport answers; tests push results to script a receiver. */
export class ScriptedReceiver extends Context.Service<ScriptedReceiver, {
  readonly requests: Ref.Ref<ReadonlyArray<TransportRequest>>
  readonly script: Ref.Ref<ReadonlyArray<Partial<TransportResult>>>
}>()("@atrium/domain/testing/ScriptedReceiver") {}

const delivered: TransportResult = {
  ok: true,
  errorKind: null,
  statusCode: 204,
  responseHeaders: {},
  responseBody: "",
  retryAfterSeconds: null,
  durationMillis: 1,
  remoteAddress: "192.0.2.10"
}

/** A result for a receiver answering `status` (a non-2xx is a failure). */
export const answer = (status: number, extra: Partial<TransportResult> = {}): Partial<TransportResult> => ({
  ok: status >= 200 && status < 300,
  statusCode: status,
  errorKind: status >= 200 && status < 300 ? null : "non_2xx",
  ...extra
})

/**
 * In-memory transport: records every request and answers from the script (2xx once it runs out). URLs on hosts
 * named `blocked.example` or IP literals are refused, standing in for the SSRF guard.
 */
export const WebhookTransportMemory = Layer.effect(
  WebhookTransport,
  Effect.gen(function*() {
    const receiver = yield* ScriptedReceiver
    return WebhookTransport.of({
      send: (request) =>
        Ref.update(receiver.requests, (all) => [...all, request]).pipe(
          Effect.andThen(Ref.modify(receiver.script, ([next, ...rest]) => [{ ...delivered, ...next }, rest]))
        ),
      checkDestination: (url) =>
        Effect.sync(() => {
          const parsed = URL.canParse(url) ? new URL(url) : undefined
          if (parsed === undefined) return { _tag: "Refused", reason: "not a URL" } as const
          if (parsed.protocol !== "https:") return { _tag: "Refused", reason: "only https URLs are allowed" } as const
          if (parsed.hostname === "blocked.example" || /^[\d.]+$|^\[/.test(parsed.hostname)) {
            return { _tag: "Refused", reason: "the destination is not publicly routable" } as const
          }
          return { _tag: "Allowed", addresses: ["192.0.2.10"] } as const
        })
    })
  })
).pipe(Layer.provideMerge(Layer.effect(ScriptedReceiver, Effect.all({ requests: Ref.make<ReadonlyArray<TransportRequest>>([]), script: Ref.make<ReadonlyArray<Partial<TransportResult>>>([]) }).pipe(Effect.map(ScriptedReceiver.of)))))
