import { Context, Effect, Layer, Ref } from "effect"
import { completeLocally } from "../ai/index.ts"
import { type AiCompletion, type AiCompletionRequest, AiProvider, ProviderError, type ProviderErrorCode } from "../ai/index.ts"

/** One scripted provider answer: a completion, a failure, or a call that never returns. */
export type ProviderStep =
  | { readonly _tag: "Complete"; readonly completion: AiCompletion }
  | { readonly _tag: "Fail"; readonly error: ProviderError }
  | { readonly _tag: "Hang" }

/** What the scripted provider answers; tests push steps, and every call is recorded. */
export class ScriptedProvider extends Context.Service<ScriptedProvider, {
  readonly calls: Ref.Ref<ReadonlyArray<AiCompletionRequest>>
  readonly script: Ref.Ref<ReadonlyArray<ProviderStep>>
}>()("@atrium/domain/testing/ScriptedProvider") {}

/** A scripted provider failure. */
export const providerFails = (code: ProviderErrorCode, retryable: boolean, message = `scripted ${code}`): ProviderStep => ({
  _tag: "Fail",
  error: new ProviderError({ code, retryable, message })
})

/** A scripted call that never answers (the runner's timeout must end it). */
export const providerHangs: ProviderStep = { _tag: "Hang" }

/** A scripted completion. */
export const providerCompletes = (completion: AiCompletion): ProviderStep => ({ _tag: "Complete", completion })

/**
 * In-memory provider: records every call and answers from the script; once the script runs out it behaves like the
 * local provider for every model (so hosted catalog entries can be exercised in tests with predictable usage).
 */
export const AiProviderMemory = Layer.effect(
  AiProvider,
  Effect.gen(function*() {
    const scripted = yield* ScriptedProvider
    return AiProvider.of({
      complete: (request) =>
        Ref.update(scripted.calls, (all) => [...all, request]).pipe(
          Effect.andThen(Ref.modify(scripted.script, (steps): readonly [ProviderStep | undefined, ReadonlyArray<ProviderStep>] => [steps[0], steps.slice(1)])),
          Effect.flatMap((step): Effect.Effect<AiCompletion, ProviderError> => {
            if (step === undefined) return Effect.succeed(completeLocally(request))
            switch (step._tag) {
              case "Complete":
                return Effect.succeed(step.completion)
              case "Fail":
                return Effect.fail(step.error)
              case "Hang":
                return Effect.never
            }
          })
        )
    })
  })
).pipe(Layer.provideMerge(Layer.effect(
  ScriptedProvider,
  Effect.all({ calls: Ref.make<ReadonlyArray<AiCompletionRequest>>([]), script: Ref.make<ReadonlyArray<ProviderStep>>([]) }).pipe(
    Effect.map(ScriptedProvider.of)
  )
)))
