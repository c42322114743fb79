import {
  ApiKeyPrincipal,
  type ApiKeyScope,
  ApiKeyId,
  type CreateScheduleInput,
  Entitlements,
  Feature,
  Schedules,
  Usage,
  type WorkspaceId,
  Workspaces
} from "@atrium/domain"
import { MemoryStore, runDueTasks, operatorPrincipal, systemPrincipal } from "@atrium/domain/testing"
import { DateTime, Effect, Ref } from "effect"
import { TestClock } from "effect/testing"

/** A workspace entitled to `ai.basic` with plenty of credits. */
export const entitledWorkspace = (credits = 100_000_000) =>
  Effect.gen(function*() {
    const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
    yield* (yield* Entitlements).grant(systemPrincipal(workspace.id), { feature: Feature.make("ai.basic"), source: "plan" })
    if (credits > 0) yield* (yield* Usage).addCredits(systemPrincipal(workspace.id), credits)
    return workspace.id
  })

/** A key principal of the workspace with `scopes`. */
export const keyOf = (workspaceId: WorkspaceId, scopes: ReadonlyArray<ApiKeyScope> = ["read", "schedules:write"]) =>
  new ApiKeyPrincipal({ keyId: ApiKeyId.make("key_test1"), workspaceId, scopes })

/** A schedule body for the local model. */
export const body = (overrides: Partial<CreateScheduleInput> = {}): CreateScheduleInput => ({
  name: "Weekly summary",
  cron: "0 * * * *",
  timezone: "UTC",
  task: { model: "atrium-local-1", input: { prompt: "hello" } },
  ...overrides
})

/** Moves the test clock to `iso`. */
export const setTime = (iso: string) => TestClock.setTime(DateTime.toEpochMillis(DateTime.makeUnsafe(iso)))

/** One worker pass as the real loop does it: claim what is due and fire each. */
export const firePass = Effect.gen(function*() {
  const schedules = yield* Schedules
  const claimed = yield* schedules.claim(100)
  yield* Effect.forEach(claimed, schedules.fire, { discard: true })
  return claimed.length
})

/** Runs every queued AI task to its end. */
export const runTasks = Effect.gen(function*() {
  return yield* runDueTasks(100)
})

/** The memory state. */
export const state = Effect.gen(function*() {
  return yield* Ref.get((yield* MemoryStore).state)
})

/** Events of `type` in the outbox, their payloads. */
export const eventsOf = (type: string) => Effect.map(state, (s) => s.events.filter((e) => e.type === type).map((e) => e.data))

/** Tasks in the store, oldest first. */
export const tasks = Effect.map(state, (s) => Array.from(s.aiTasks.values()))
