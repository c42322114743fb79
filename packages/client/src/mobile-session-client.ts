import { SessionRejected, Unavailable } from "@atrium/domain"
import { Context, Duration, Effect, Layer, Option, Redacted, Schedule, Schema, Semaphore } from "effect"
import { HttpClient, HttpClientError } from "effect/http"
import { type AtriumClient, makeAtriumClient } from "./client.ts"

/**
 * Where the app keeps the session's tokens: the platform keychain / keystore on a device (the reference client never
 * holds them anywhere else). `layerMemory` is for tests and examples.
 */
export class SecureStore extends Context.Service<SecureStore, {
  readonly get: (key: string) => Effect.Effect<Option.Option<string>>
  readonly set: (key: string, value: string) => Effect.Effect<void>
  readonly remove: (key: string) => Effect.Effect<void>
}>()("@atrium/adapters-http/SecureStore") {
  /** A store in this process's memory. */
  static readonly layerMemory = Layer.sync(SecureStore, () => {
    const entries = new Map<string, string>()
    return SecureStore.of({
      get: (key) => Effect.sync(() => Option.fromNullishOr(entries.get(key))),
      set: (key, value) => Effect.sync(() => void entries.set(key, value)),
      remove: (key) => Effect.sync(() => void entries.delete(key))
    })
  })
}

/** The keys the session client keeps in the `SecureStore`. */
export const sessionKeys = { accessToken: "atrium.accessToken", refreshToken: "atrium.refreshToken" } as const

/** There is no session (never signed in, signed out, or the server ended it with `invalid_session`): sign in. */
export class SignedOut extends Schema.TaggedError<SignedOut>()("SignedOut", {
  reason: Schema.Literals(["no_session", "invalid_session"])
}) {}

/** How the session client retries network failures and 503s. */
export interface SessionClientOptions {
  readonly baseUrl: string | URL
  /** Retries after the first attempt (default 4). */
  readonly retries?: number | undefined
  /** The first backoff; each next one doubles, with jitter (default 200 ms). */
  readonly backoff?: Duration.Input | undefined
}

const isNetworkFailure = (error: unknown) => HttpClientError.isHttpClientError(error) && error.reason._tag === "TransportError"
const isRetryable = (error: unknown) => isNetworkFailure(error) || error instanceof Unavailable
const isRejected = (code: SessionRejected["code"]) => (error: unknown): boolean =>
  error instanceof SessionRejected && error.code === code

/**
 * The reference session client of the native app: keeps tokens only in the `SecureStore`; on 401 `session_expired`
 * refreshes once (one refresh at a time: a refresh token is single-use) and retries; on 401 `invalid_session` forgets
 * the tokens and fails with `SignedOut`; retries network failures and 503 `unavailable` with exponential backoff.
 */
export class MobileSessionClient extends Context.Service<MobileSessionClient, {
  /** Signs in and stores the tokens. */
  readonly signIn: (email: string, password: Redacted.Redacted<string>) => Effect.Effect<void, unknown>
  /** Ends the session on the server (when it can) and forgets the tokens. */
  readonly signOut: Effect.Effect<void>
  /** Runs `call` with the session's bearer token, refreshing, signing out and retrying as above. */
  readonly call: <A, E>(call: (client: AtriumClient) => Effect.Effect<A, E>) => Effect.Effect<A, E | SignedOut>
}>()("@atrium/adapters-http/MobileSessionClient") {
  /** The client against `options.baseUrl`, over the given `HttpClient` and `SecureStore`. */
  static readonly layer = (options: SessionClientOptions) => Layer.effect(MobileSessionClient, make(options))
}

const make = Effect.fnUntraced(function*(options: SessionClientOptions) {
  const store = yield* SecureStore
  const http = yield* HttpClient.HttpClient
  const client = yield* makeAtriumClient({
    baseUrl: options.baseUrl,
    token: Effect.map(store.get(sessionKeys.accessToken), Option.getOrUndefined)
  }).pipe(Effect.provideService(HttpClient.HttpClient, http))
  const refreshing = yield* Semaphore.make(1)
  const backoff = Schedule.exponential(options.backoff ?? Duration.millis(200)).pipe(Schedule.jittered)
  const retrying = <A, E>(effect: Effect.Effect<A, E>) =>
    effect.pipe(Effect.retry({ schedule: backoff, times: options.retries ?? 4, while: isRetryable }))

  const keep = (session: { readonly accessToken: string; readonly refreshToken: string }) =>
    Effect.andThen(store.set(sessionKeys.accessToken, session.accessToken), store.set(sessionKeys.refreshToken, session.refreshToken))
  const forget = Effect.andThen(store.remove(sessionKeys.accessToken), store.remove(sessionKeys.refreshToken))
  const signedOut = (reason: SignedOut["reason"]) => Effect.andThen(forget, Effect.fail(new SignedOut({ reason })))

  // Refreshes unless another call already did since `spent` was read; `invalid_session` signs out.
  const refresh = (spent: Option.Option<string>) =>
    refreshing.withPermits(1)(Effect.gen(function*() {
      const current = yield* store.get(sessionKeys.refreshToken)
      if (Option.isNone(current)) return yield* signedOut("no_session")
      if (Option.isSome(spent) && current.value !== spent.value) return
      const refreshed = yield* retrying(client.auth.refresh({ payload: { refreshToken: current.value } })).pipe(
        Effect.map(Option.some),
        // Any refusal of the refresh token (spent, revoked, unknown) ends the session; a refresh that cannot get
        // through leaves it as it is, and the caller sees the original failure.
        Effect.catch((error) => error instanceof SessionRejected ? signedOut("invalid_session") : Effect.succeed(Option.none()))
      )
      if (Option.isSome(refreshed)) yield* keep(refreshed.value.session)
    }))

  const call = <A, E>(run: (client: AtriumClient) => Effect.Effect<A, E>): Effect.Effect<A, E | SignedOut> =>
    Effect.gen(function*() {
      const spent = yield* store.get(sessionKeys.refreshToken)
      if (Option.isNone(spent)) return yield* signedOut("no_session")
      const attempt = retrying(run(client)).pipe(Effect.catchIf(isRejected("invalid_session"), () => signedOut("invalid_session")))
      return yield* attempt.pipe(
        // Once: a second `session_expired` after a refresh is the caller's to see.
        Effect.catchIf(isRejected("session_expired"), (expired) =>
          Effect.andThen(refresh(spent), Effect.gen(function*() {
            return yield* (Option.getOrUndefined(yield* store.get(sessionKeys.refreshToken)) === spent.value ? Effect.fail(expired) : attempt)
          })))
      )
    })

  const signIn = Effect.fnUntraced(function*(email: string, password: Redacted.Redacted<string>) {
    const signedIn = yield* retrying(client.auth.signIn({ payload: { email, password: Redacted.value(password) } }))
    yield* keep(signedIn.session)
  })

  const signOut = Effect.gen(function*() {
    if (Option.isSome(yield* store.get(sessionKeys.accessToken))) {
      yield* client.authSession.signOut().pipe(Effect.ignore)
    }
    yield* forget
  })

  return MobileSessionClient.of({ signIn, signOut, call })
})
