import { type OutgoingPush, type PushReceipt, PushService, PushServiceError, type PushServiceShape, type PushTicket } from "@atrium/domain"
import { Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"

/** Where Expo's push API is and the server-held access token (never sent anywhere else, never logged). */
export interface ExpoPushOptions {
  /** `https://exp.host` in production; a loopback fake in tests. */
  readonly baseUrl: string
  readonly accessToken: Redacted.Redacted<string>
  readonly timeout?: Duration.Input | undefined
}

const ErrorDetails = Schema.optional(Schema.Struct({ error: Schema.optional(Schema.String) }))
const TicketJson = Schema.Union([
  Schema.Struct({ status: Schema.Literal("ok"), id: Schema.String }),
  Schema.Struct({ status: Schema.Literal("error"), message: Schema.optional(Schema.String), details: ErrorDetails })
])
const SendResponse = Schema.Struct({ data: Schema.Array(TicketJson) })
const ReceiptJson = Schema.Union([
  Schema.Struct({ status: Schema.Literal("ok") }),
  Schema.Struct({ status: Schema.Literal("error"), message: Schema.optional(Schema.String), details: ErrorDetails })
])
const ReceiptsResponse = Schema.Struct({ data: Schema.Record(Schema.String, ReceiptJson) })
const decodeSend = Schema.decodeUnknownEffect(SendResponse)
const decodeReceipts = Schema.decodeUnknownEffect(ReceiptsResponse)

// Fixed texts only: the client's own errors carry the request, and with it the Authorization header.
const failure = (reason: PushServiceError["reason"], detail: string, retryAfterSeconds: number | null = null) =>
  new PushServiceError({ reason, detail, retryAfterSeconds })

// `Retry-After` in seconds (or an HTTP date), bounded to a day.
const retryAfterOf = (response: HttpClientResponse.HttpClientResponse): number | null => {
  const header = response.headers["retry-after"]
  if (header === undefined) return null
  const seconds = /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) : (Date.parse(header) - Date.now()) / 1000
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 86_400) : null
}

const statusFailure = (response: HttpClientResponse.HttpClientResponse): PushServiceError => {
  if (response.status === 429) return failure("rate_limited", "the push service is rate limiting (429)", retryAfterOf(response))
  if (response.status === 401 || response.status === 403) return failure("invalid_credentials", `the push service refused the access token (${response.status})`)
  if (response.status >= 500) return failure("unavailable", `the push service is unavailable (${response.status})`, retryAfterOf(response))
  return failure("invalid_response", `the push service rejected the request (${response.status})`)
}

// The code only: Expo's `message` (and `details.expoPushToken`) name the device's token, which stays out of every record.
const errorCode = (answer: { readonly message?: string | undefined; readonly details?: { readonly error?: string | undefined } | undefined }) =>
  answer.details?.error ?? "Unknown"

/** Expo's push API (`/--/api/v2/push/send`, `/--/api/v2/push/getReceipts`) over the app's `HttpClient`. */
export const ExpoPushService = {
  /** Provides the `PushService` reference (a reference has no requirement to satisfy, hence `never`). */
  layer: (options: ExpoPushOptions): Layer.Layer<never, never, HttpClient.HttpClient> =>
    Layer.effect(
      PushService,
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const base = `${options.baseUrl.replace(/\/+$/, "")}/--/api/v2/push`
        const timeout = Option.getOrElse(Option.flatMap(Option.fromNullishOr(options.timeout), Duration.fromInput), () => Duration.seconds(15))

        const post = (path: string, body: unknown) =>
          Effect.gen(function*() {
            const request = yield* HttpClientRequest.post(`${base}/${path}`).pipe(
              HttpClientRequest.bearerToken(options.accessToken),
              HttpClientRequest.acceptJson,
              HttpClientRequest.bodyJson(body),
              Effect.mapError(() => failure("invalid_response", "the request could not be built"))
            )
            const response = yield* client.execute(request).pipe(Effect.mapError(() => failure("unavailable", "the push service could not be reached")))
            if (response.status < 200 || response.status >= 300) return yield* statusFailure(response)
            return yield* response.json.pipe(Effect.mapError(() => failure("invalid_response", "the push service sent a malformed response")))
          }).pipe(
            Effect.timeoutOption(timeout),
            Effect.flatMap(Option.match({ onNone: () => Effect.fail(failure("unavailable", "the push service did not answer in time")), onSome: Effect.succeed }))
          )

        const send = Effect.fn("ExpoPushService.send")(function*(pushes: ReadonlyArray<OutgoingPush>) {
          // The one place a device's token is read out: into the body of this request.
          const body = pushes.map(({ message: m, to }) => ({ to: Redacted.value(to), title: m.title, body: m.body, data: m.data, sound: "default" }))
          const decoded = yield* post("send", body).pipe(
            Effect.flatMap((json) => decodeSend(json).pipe(Effect.mapError(() => failure("invalid_response", "the push service sent a malformed response"))))
          )
          if (decoded.data.length !== pushes.length) return yield* failure("invalid_response", "the push service answered for a different number of messages")
          return decoded.data.map((ticket): PushTicket => ticket.status === "ok" ? { status: "ok", id: ticket.id } : { status: "error", error: errorCode(ticket) })
        })

        const receipts = Effect.fn("ExpoPushService.receipts")(function*(ids: ReadonlyArray<string>) {
          const decoded = yield* post("getReceipts", { ids }).pipe(
            Effect.flatMap((json) => decodeReceipts(json).pipe(Effect.mapError(() => failure("invalid_response", "the push service sent a malformed response"))))
          )
          return new Map(Object.entries(decoded.data).map(([id, receipt]): readonly [string, PushReceipt] =>
            [id, receipt.status === "ok" ? { status: "ok" } : { status: "error", error: errorCode(receipt) }]
          ))
        })

        const service: PushServiceShape = { enabled: true, send, receipts }
        return service
      })
    )
}
