import { assert, describe, it } from "@effect/vitest"
import {
  Accounts,
  AiTaskRequest,
  AiTasks,
  ApiKeyName,
  ApiKeys,
  AppearanceBundle,
  defaultAppearance,
  Email,
  EmailInput,
  isSafeTextValue,
  SafeMultilineText,
  SafeText,
  UserName,
  WebhookDescription,
  WebhookEndpoints,
  WebhookUrl,
  WorkspaceName,
  Workspaces
} from "@atrium/domain"
import { Domain, MemoryStore, ownerPrincipal, systemPrincipal, operatorPrincipal } from "@atrium/domain/testing"
import { Effect, Option, Redacted, Ref, Schema } from "effect"

const state = Effect.flatMap(MemoryStore, (store) => Ref.get(store.state))

// What probing found turning into 500s: NUL, a lone surrogate of either half, other controls, DEL and C1.
const poisons = ["a\u0000b", "a\uD800b", "a\uDC00b", "\uDBFF", "a\u0001b", "a\u001Bb", "a\u007Fb", "a\u0085b", "a\u009Fb"]

const refuses = (schema: Schema.Top, value: unknown) => assert.isFalse(Schema.is(schema)(value), `${JSON.stringify(value)} passed`)
const accepts = (schema: Schema.Top, value: unknown) => assert.isTrue(Schema.is(schema)(value), `${JSON.stringify(value)} refused`)

describe("the safe-text rule", () => {
  it("refuses NUL, lone surrogates and control characters; keeps every well-formed script and emoji", () => {
    for (const poison of poisons) {
      refuses(SafeText, poison)
      refuses(SafeMultilineText, poison)
    }
    for (const fine of ["Ada Lovelace", "Zoë", "北京", "مرحبا", "👩🏽‍💻 team", "\u{1F600}", ""]) {
      accepts(SafeText, fine)
      accepts(SafeMultilineText, fine)
    }
    // Tab and line breaks only where text may span lines.
    for (const multiline of ["line one\nline two", "a\tb", "a\r\nb"]) {
      refuses(SafeText, multiline)
      accepts(SafeMultilineText, multiline)
    }
    assert.isFalse(isSafeTextValue("x\u0000"))
    assert.isTrue(isSafeTextValue("x\ny", { multiline: true }))
  })

  it("is part of every domain schema that takes client text", () => {
    const single = [UserName, WorkspaceName, ApiKeyName, WebhookUrl, EmailInput]
    for (const schema of single) for (const poison of poisons) refuses(schema, `x${poison}`)
    for (const poison of poisons) {
      refuses(Email, `a${poison}@example.com`)
      refuses(WebhookDescription, poison)
      refuses(AiTaskRequest, { model: "atrium-local-1", input: { prompt: poison } })
      refuses(AiTaskRequest, { model: "atrium-local-1", input: { messages: [{ role: "user", content: poison }] } })
      refuses(AiTaskRequest, { model: `m${poison}`, input: { prompt: "hi" } })
      refuses(AiTaskRequest, { model: "atrium-local-1", input: { prompt: "hi" }, metadata: { k: poison } })
      refuses(AiTaskRequest, { model: "atrium-local-1", input: { prompt: "hi" }, metadata: { [poison]: "v" } })
      refuses(AppearanceBundle, { ...defaultAppearance, extras: { note: poison } })
      refuses(AppearanceBundle, { ...defaultAppearance, extras: { [poison]: true } })
    }
    accepts(AiTaskRequest, { model: "atrium-local-1", input: { prompt: "Summarise:\n\tline one\n\tline two" } })
    accepts(WebhookDescription, "Orders\nand refunds")
  })
})

describe("domain services refuse unsafe text before storing anything", () => {
  it.effect("sign-up, workspaces, keys, webhook endpoints and AI tasks answer InvalidInput and write nothing", () =>
    Effect.gen(function*() {
      const workspace = yield* (yield* Workspaces).create(operatorPrincipal(), { name: "Acme" })
      const before = yield* state
      const refused = (attempt: Effect.Effect<unknown, { readonly _tag: string }>) => Effect.flip(attempt)
      const outcomes = yield* Effect.all([
        (yield* Accounts).signUp({ email: "a\u0000@x.com", password: Redacted.make("correct horse battery"), name: "Ada" }),
        (yield* Accounts).signUp({ email: "ada@x.com", password: Redacted.make("correct horse battery"), name: "Ada\uD800" }),
        (yield* Workspaces).create(operatorPrincipal(), { name: "Acme\u0000" }),
        (yield* ApiKeys).create(systemPrincipal(workspace.id), { name: "ci\u0000" }),
        (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/\u0000" }),
        (yield* WebhookEndpoints).create(ownerPrincipal(workspace.id), { url: "https://hooks.example.com/a", description: "x\uDC00" }),
        (yield* AiTasks).submit(systemPrincipal(workspace.id), { model: "atrium-local-1", input: { prompt: "hi\u0000" } })
      ].map(refused))
      assert.deepStrictEqual(outcomes.map((error) => error._tag), Array(7).fill("InvalidInput"))
      const after = yield* state
      assert.deepStrictEqual(
        [after.users.size, after.workspaces.size, after.apiKeys.size, after.endpoints.size, after.aiTasks.size, after.events.length],
        [before.users.size, before.workspaces.size, before.apiKeys.size, before.endpoints.size, before.aiTasks.size, before.events.length]
      )
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a user agent with control characters is not kept on the session", () =>
    Effect.gen(function*() {
      const signed = yield* (yield* Accounts).signUp({
        email: "ada@example.com",
        password: Redacted.make("correct horse battery"),
        name: "Ada",
        userAgent: "Atrium\u0000iOS"
      })
      assert.isTrue(Option.isNone(signed.session.session.userAgent))
    }).pipe(Effect.provide(Domain.layerMemory)))

  it.effect("a sign-in with a poisoned email is the usual invalid_credentials, not a crash", () =>
    Effect.gen(function*() {
      const error = yield* (yield* Accounts).signIn({ email: "a\u0000@x.com", password: Redacted.make("xxxxxxxxxxxx") }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "InvalidCredentials")
    }).pipe(Effect.provide(Domain.layerMemory)))
})
