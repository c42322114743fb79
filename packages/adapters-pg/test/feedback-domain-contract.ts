import {
  Accounts,
  AuditLog,
  dailyRequestLimit,
  FeatureRequests,
  type WorkspaceId
} from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import type { Ports } from "../src/index.ts"
import { token } from "./fixtures.ts"

// The feature-request board and the accounts that submit to it, over the ports under test.
const domain = Domain.layerOver(Layer.empty)

const member = Effect.gen(function*() {
  const accounts = yield* Accounts
  const signed = yield* accounts.signUp({ email: `${token()}@example.com`, password: Redacted.make("correct horse battery"), name: `Person ${token()}` })
  return yield* accounts.authenticate(signed.session.accessToken)
})

const createdEntries = (workspaceId: WorkspaceId) =>
  Effect.gen(function*() {
    const page = yield* (yield* AuditLog).list(workspaceId, { limit: 100, cursor: undefined })
    return page.data.filter((entry) => entry.action === "feature_request.created")
  })

/** The board's rules that need the storage's own concurrency control, end to end over one target. */
export const feedbackDomainContract = <E>(label: string, target: Layer.Layer<Ports, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`feature requests end to end on ${label}`, (it) => {
    it.effect("25 concurrent submissions by one member: exactly the daily limit succeed, the rest are rate_limited", () =>
      Effect.gen(function*() {
        const board = yield* FeatureRequests
        const principal = yield* member
        const results = yield* Effect.all(
          Array.from({ length: 25 }, (_, n) => board.create(principal, { title: `Concurrent idea ${n} ${token()}`, details: "" }, Option.none())),
          { concurrency: "unbounded", mode: "result" }
        )
        const won = results.flatMap((r) => r._tag === "Success" ? [r.success.request] : [])
        const refused = results.flatMap((r) => r._tag === "Failure" ? [r.failure] : [])
        assert.strictEqual(won.length, dailyRequestLimit)
        assert.strictEqual(refused.length, 25 - dailyRequestLimit)
        for (const error of refused) {
          assert.strictEqual(error._tag, "RateLimited")
          if (error._tag === "RateLimited") assert.strictEqual(error.code, "rate_limited")
        }
        // Exactly the winners are stored, each with its one audit entry, and the limit holds for a later submission too.
        const stored = yield* board.list(principal, { status: undefined, sort: "new" }, { limit: 100, cursor: undefined })
        const mine = stored.data.filter((r) => r.request.authorId === principal.userId).map((r) => r.request.id)
        assert.sameMembers(mine, won.map((r) => r.id))
        assert.sameMembers((yield* createdEntries(principal.workspaceId)).map((entry) => entry.target), won.map((r) => r.id))
        const later = yield* board.create(principal, { title: `One more ${token()}`, details: "" }, Option.none()).pipe(Effect.flip)
        assert.strictEqual(later._tag, "RateLimited")
      }).pipe(Effect.provide(domain)))

    it.effect("concurrent submissions with one Idempotency-Key store one request and replay it to every caller", () =>
      Effect.gen(function*() {
        const board = yield* FeatureRequests
        const principal = yield* member
        const input = { title: `Replayed idea ${token()}`, details: "same body" }
        const results = yield* Effect.all(
          Array.from({ length: 6 }, () => board.create(principal, input, Option.some("same-key"))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(results.map((r) => r.request.id)).size, 1)
        assert.strictEqual((yield* createdEntries(principal.workspaceId)).length, 1)
      }).pipe(Effect.provide(domain)))
  })
