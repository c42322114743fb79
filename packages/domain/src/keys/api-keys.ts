import { Cache, Context, DateTime, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import type { Actor } from "../shared/index.ts"
import { ApiKey, ApiKeyName, maxApiKeyLifetime, rollGrace } from "./api-key.ts"
import { type ApiKeyEnvironment, mintApiKey, parseApiKey } from "./api-key-secret.ts"
import { type ApiKeyScope, defaultScopes } from "../access/index.ts"
import { toApiKeyView } from "./api-key-view.ts"
import { ApiKeyEvents } from "./api-key-events.ts"
import { ChangeLog, emit } from "../audit/index.ts"
import { type Acting, actorOf, ApiKeyRejected, type Forbidden, type InsufficientScope, permits } from "../access/index.ts"
import { Conflict, decodeInput, InvalidInput, NotFound, type Unavailable } from "../shared/index.ts"
import { IdGenerator } from "../shared/index.ts"
import { ApiKeyId, type WorkspaceId } from "../shared/index.ts"
import type { PageRequest } from "../shared/index.ts"
import { ApiKeyPrincipal } from "../access/index.ts"
import { ApiKeyRepository } from "./api-key-repository.ts"
import { Transactor } from "../shared/index.ts"
import { makeRecentValues, SecretHasher } from "../shared/index.ts"
import { SecureRandom } from "../shared/index.ts"

/** What creating a key needs; the workspace and actor are the acting principal's, never a client's body. */
export interface CreateApiKeyInput {
  readonly name: string
  readonly scopes?: ReadonlyArray<ApiKeyScope> | undefined
  readonly environment?: ApiKeyEnvironment | undefined
  readonly expiresAt?: DateTime.Utc | undefined
}

/** A new key and its plaintext, which is returned this once and never stored. */
export interface CreatedApiKey {
  readonly apiKey: ApiKey
  readonly plaintext: Redacted.Redacted<string>
}

/** What rolling a key needs. */
export interface RollApiKeyInput {
  readonly id: ApiKeyId
  /** How long the old key keeps working: whole seconds, 0 up to 7 days (default 24 hours). */
  readonly graceSeconds?: number | undefined
}

/** A rolled key: its successor (plaintext returned this once) and the old key with its grace as `expiresAt`. */
export interface RolledApiKey extends CreatedApiKey {
  readonly previous: ApiKey
}

const decodeName = decodeInput(ApiKeyName, "name")

// A verified key is reused for at most this long, which bounds how late another process sees a revocation.
const cacheTtl = Duration.seconds(1)
// `lastUsedAt` is written at most this often per key, off the request path.
const lastUsedIntervalMillis = Duration.toMillis(Duration.minutes(1))

/** Who may not manage keys: a member below admin, any API key. */
type Refused = Forbidden | InsufficientScope

/**
 * Issues, verifies and revokes workspace API keys. Managing them needs `api_keys.manage`, asked here of the acting
 * principal, in the principal's workspace: an embedder gets the same checks as an HTTP caller.
 */
export class ApiKeys extends Context.Service<ApiKeys, {
  /** Refuses a name that is not one line of text, and an expiry that is not in the future (or beyond ten years). */
  readonly create: (principal: Acting, input: CreateApiKeyInput) => Effect.Effect<CreatedApiKey, Refused | InvalidInput | Unavailable>
  /**
   * Replaces a key with a new one of the same name, scopes, environment and expiry; the old key keeps working for the
   * grace, then answers `api_key_expired`. A revoked, expired or already rolled key is a `Conflict`.
   */
  readonly roll: (principal: Acting, input: RollApiKeyInput) => Effect.Effect<RolledApiKey, Refused | NotFound | Conflict | InvalidInput | Unavailable>
  readonly revoke: (principal: Acting, id: ApiKeyId) => Effect.Effect<ApiKey, Refused | Unavailable | NotFound>
  readonly list: (principal: Acting, page: PageRequest) => Effect.Effect<{ readonly data: ReadonlyArray<ApiKey>; readonly nextCursor: string | null }, Refused | Unavailable>
  /** Resolves a presented key to its principal, or says exactly why it is refused. */
  readonly authenticate: (presented: Redacted.Redacted<string>) => Effect.Effect<ApiKeyPrincipal, ApiKeyRejected | Unavailable>
}>()("@atrium/domain/ApiKeys") {
  static readonly layer = Layer.effect(
    ApiKeys,
    Effect.gen(function*() {
      const repo = yield* ApiKeyRepository
      const tx = yield* Transactor
      const hasher = yield* SecretHasher
      const ids = yield* IdGenerator
      const random = yield* SecureRandom
      const changes = yield* ChangeLog

      // Only found keys are cached; misses and failures go to the repository every time.
      const byDigest = yield* Cache.makeWith(repo.findByDigest, {
        capacity: 10_000,
        timeToLive: (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value) ? cacheTtl : Duration.zero
      })
      // The same keys, read without an effect on the hot path; dropped with the cache entry.
      const verified = makeRecentValues<string, ApiKey>(cacheTtl, 10_000)
      const forget = (digest: string) => Effect.andThen(Effect.sync(() => verified.delete(digest)), Cache.invalidate(byDigest, digest))
      const lastWritten = new Map<string, number>()

      // Runs on every authenticated request: a plain check, and an effect only when a write is due.
      const touch = (key: ApiKey, nowMillis: number): Effect.Effect<void> | undefined => {
        const last = lastWritten.get(key.id) ?? Option.match(key.lastUsedAt, { onNone: () => Number.NEGATIVE_INFINITY, onSome: DateTime.toEpochMillis })
        if (nowMillis - last < lastUsedIntervalMillis) return undefined
        lastWritten.set(key.id, nowMillis)
        return repo.touchLastUsed(key.id, DateTime.makeUnsafe(nowMillis)).pipe(Effect.ignore, Effect.forkDetach, Effect.asVoid)
      }

      const principalOf = (key: ApiKey): ApiKeyPrincipal => new ApiKeyPrincipal({ keyId: key.id, workspaceId: key.workspaceId, scopes: key.scopes })

      // A key that is born expired, or expires beyond any plan (year 275760, year −271821), is a mistake: refuse it.
      const checkExpiry = Effect.fnUntraced(function*(expiresAt: DateTime.Utc | undefined, now: DateTime.Utc) {
        if (expiresAt === undefined) return
        if (!DateTime.isGreaterThan(expiresAt, now)) return yield* new InvalidInput({ detail: "expiresAt must be in the future" })
        if (DateTime.isGreaterThan(expiresAt, DateTime.addDuration(now, maxApiKeyLifetime))) {
          return yield* new InvalidInput({ detail: "expiresAt must be within ten years" })
        }
      })

      // A key not yet stored: a fresh secret, and only its digest and display prefix.
      const newKey = Effect.fnUntraced(function*(fields: {
        readonly workspaceId: WorkspaceId
        readonly name: string
        readonly environment: ApiKeyEnvironment
        readonly scopes: ReadonlyArray<ApiKeyScope>
        readonly expiresAt: Option.Option<DateTime.Utc>
        readonly actor: Actor
        readonly now: DateTime.Utc
      }) {
        const minted = yield* mintApiKey(fields.environment).pipe(Effect.provideService(SecureRandom, random))
        const apiKey = new ApiKey({
          id: ApiKeyId.make(yield* ids.make("key")),
          workspaceId: fields.workspaceId,
          name: fields.name,
          environment: minted.environment,
          displayPrefix: minted.displayPrefix,
          digest: yield* hasher.digest(minted.plaintext),
          scopes: fields.scopes,
          createdBy: fields.actor,
          createdAt: fields.now,
          expiresAt: fields.expiresAt,
          revokedAt: Option.none(),
          lastUsedAt: Option.none(),
          replacedBy: Option.none()
        })
        const created: CreatedApiKey = { apiKey, plaintext: minted.plaintext }
        return created
      })

      const create = Effect.fn("ApiKeys.create")(function*(principal: Acting, input: CreateApiKeyInput) {
        yield* permits(principal, "api_keys.manage")
        const actor = actorOf(principal)
        const name = yield* decodeName(input.name.trim())
        const now = yield* DateTime.now
        yield* checkExpiry(input.expiresAt, now)
        const created = yield* newKey({
          workspaceId: principal.workspaceId,
          name,
          environment: input.environment ?? "live",
          scopes: input.scopes === undefined || input.scopes.length === 0 ? defaultScopes : [...new Set(input.scopes)],
          expiresAt: Option.fromNullishOr(input.expiresAt),
          actor,
          now
        })
        const apiKey = created.apiKey
        yield* tx.withTransaction(
          Effect.gen(function*() {
            yield* repo.insert(apiKey)
            yield* changes.record({
              workspaceId: apiKey.workspaceId,
              actor,
              action: "api_key.created",
              target: apiKey.id,
              event: emit(ApiKeyEvents.created, { apiKey: toApiKeyView(apiKey) })
            })
          })
        )
        return created
      })

      const roll = Effect.fn("ApiKeys.roll")(function*(principal: Acting, input: RollApiKeyInput) {
        yield* permits(principal, "api_keys.manage")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        const graceSeconds = input.graceSeconds ?? Duration.toSeconds(rollGrace.default)
        if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > Duration.toSeconds(rollGrace.maximum)) {
          return yield* new InvalidInput({ detail: `graceSeconds must be a whole number from 0 to ${Duration.toSeconds(rollGrace.maximum)}` })
        }
        const now = yield* DateTime.now
        const rolled = yield* tx.withTransaction(
          Effect.gen(function*() {
            const found = yield* repo.findById(workspaceId, input.id)
            if (Option.isNone(found)) return yield* new NotFound({ resource: "api_key" })
            const old = found.value
            if (Option.isSome(old.revokedAt)) return yield* new Conflict({ detail: "A revoked key cannot be rolled" })
            if (Option.isSome(old.replacedBy)) return yield* new Conflict({ detail: `The key was already rolled; roll ${old.replacedBy.value} instead` })
            if (old.isExpiredAt(now)) return yield* new Conflict({ detail: "An expired key cannot be rolled" })
            const successor = yield* newKey({ ...old, actor, now })
            // The grace never lengthens the old key's life: an earlier expiry stands.
            const graceEnd = DateTime.add(now, { seconds: graceSeconds })
            const oldExpiry = Option.match(old.expiresAt, { onNone: () => graceEnd, onSome: (at) => DateTime.min(at, graceEnd) })
            const previous = yield* repo.markRolled(workspaceId, old.id, successor.apiKey.id, oldExpiry, now)
            // Lost to a concurrent roll or revocation between the read and the write: the transaction keeps nothing.
            if (Option.isNone(previous)) return yield* new Conflict({ detail: "The key changed while it was being rolled; try again" })
            yield* repo.insert(successor.apiKey)
            yield* changes.record({
              workspaceId,
              actor,
              action: "api_key.rolled",
              target: old.id,
              event: emit(ApiKeyEvents.rolled, { apiKey: toApiKeyView(successor.apiKey), previous: toApiKeyView(previous.value) })
            })
            const result: RolledApiKey = { ...successor, previous: previous.value }
            return result
          })
        )
        // This process sees the old key's new expiry on its very next request.
        yield* forget(rolled.previous.digest)
        return rolled
      })

      const revoke = Effect.fn("ApiKeys.revoke")(function*(principal: Acting, id: ApiKeyId) {
        yield* permits(principal, "api_keys.manage")
        const { workspaceId } = principal
        const actor = actorOf(principal)
        const revoked = yield* tx.withTransaction(
          Effect.gen(function*() {
            const existing = yield* repo.findById(workspaceId, id)
            if (Option.isNone(existing)) return yield* new NotFound({ resource: "api_key" })
            if (Option.isSome(existing.value.revokedAt)) return existing.value
            const after = yield* repo.revoke(workspaceId, id, yield* DateTime.now)
            if (Option.isNone(after)) return yield* new NotFound({ resource: "api_key" })
            yield* changes.record({
              workspaceId,
              actor,
              action: "api_key.revoked",
              target: id,
              event: emit(ApiKeyEvents.revoked, { apiKey: toApiKeyView(after.value) })
            })
            return after.value
          })
        )
        // This process stops honouring the key on its very next request.
        yield* forget(revoked.digest)
        return revoked
      })

      const list = Effect.fn("ApiKeys.list")(function*(principal: Acting, page: PageRequest) {
        yield* permits(principal, "api_keys.manage")
        return yield* repo.list(principal.workspaceId, page)
      })

      const missing = new ApiKeyRejected({ code: "missing_credentials" })
      const malformed = new ApiKeyRejected({ code: "malformed_credentials" })
      const unknown = new ApiKeyRejected({ code: "invalid_api_key" })
      const revoked = new ApiKeyRejected({ code: "api_key_revoked" })
      const expired = new ApiKeyRejected({ code: "api_key_expired" })

      // The judgement of a found key at `nowMillis`: revoked, expired, or its principal (noting the use).
      const admit = (key: ApiKey, nowMillis: number): Effect.Effect<ApiKeyPrincipal, ApiKeyRejected> => {
        if (Option.isSome(key.revokedAt)) return Effect.fail(revoked)
        if (Option.isSome(key.expiresAt) && nowMillis >= DateTime.toEpochMillis(key.expiresAt.value)) return Effect.fail(expired)
        const write = touch(key, nowMillis)
        return write === undefined ? Effect.succeed(principalOf(key)) : Effect.as(write, principalOf(key))
      }

      // Untraced and in as few steps as it can: it runs on every authenticated request, where a span, a generator or
      // a cache lookup through effects costs more than the check itself. A recently verified key is a map read.
      const authenticate = (presented: Redacted.Redacted<string>): Effect.Effect<ApiKeyPrincipal, ApiKeyRejected | Unavailable> => {
        if (Redacted.value(presented).length === 0) return Effect.fail(missing)
        return Effect.flatMap(hasher.digest(presented), (digest) =>
          Effect.clockWith((clock) => {
            const nowMillis = clock.currentTimeMillisUnsafe()
            // Only well-formed keys that were found are remembered, so a hit needs no parsing.
            const recent = verified.get(digest, nowMillis)
            if (recent !== undefined) return admit(recent, nowMillis)
            if (Option.isNone(parseApiKey(presented))) return Effect.fail(malformed)
            return Effect.flatMap(Cache.get(byDigest, digest), (found) => {
              if (Option.isNone(found)) return Effect.fail(unknown)
              verified.set(digest, found.value, nowMillis)
              return admit(found.value, nowMillis)
            })
          }))
      }

      return ApiKeys.of({ create, roll, revoke, list, authenticate })
    })
  )
}
