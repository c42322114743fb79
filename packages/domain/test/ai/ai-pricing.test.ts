import { actualCostMicros, AiTaskInput, Micros, ModelSpec, priceTokens, worstCaseCostMicros } from "@atrium/domain"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { inputTokenUpperBound } from "../../src/ai/ai-pricing.ts"

// Money is integer micro-USD: prices per million tokens, rounded up to the micro, with no float anywhere.
const tokens = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000_000 }))
const price = Micros.check(Schema.isLessThanOrEqualTo(1_000_000_000_000))

describe("money arithmetic properties", () => {
  it.prop("a price is the exact ceiling of tokens × price / 1,000,000, a safe integer", [tokens, price], ([count, perMillion]) => {
    const charged = priceTokens(count, perMillion)
    const exact = BigInt(count) * BigInt(perMillion)
    assert.isTrue(Number.isSafeInteger(charged) && charged >= 0)
    assert.isTrue(BigInt(charged) * 1_000_000n >= exact)
    assert.isTrue(exact === 0n ? charged === 0 : BigInt(charged - 1) * 1_000_000n < exact)
  })

  it.prop("splitting a count costs at most one micro more, and more tokens never cost less", [tokens, tokens, price], ([a, b, perMillion]) => {
    const apart = priceTokens(a, perMillion) + priceTokens(b, perMillion)
    const together = priceTokens(a + b, perMillion)
    assert.isTrue(apart - together === 0 || apart - together === 1)
    assert.isTrue(together >= priceTokens(Math.max(a, b), perMillion))
  })

  it.prop("a task within its bounds costs what its usage prices at, never above its reservation", [ModelSpec, AiTaskInput, tokens, tokens], ([spec, input, inputUsed, outputUsed]) => {
    const maxOutput = Math.min(spec.maxOutputTokens, 1_000_000)
    const reserved = worstCaseCostMicros(spec, input, maxOutput)
    const usage = { inputTokens: inputUsed % (inputTokenUpperBound(spec, input) + 1), outputTokens: outputUsed % (maxOutput + 1) }
    const cost = actualCostMicros(spec, usage, reserved)
    assert.strictEqual(cost, priceTokens(usage.inputTokens, spec.inputPriceMicrosPerMTok) + priceTokens(usage.outputTokens, spec.outputPriceMicrosPerMTok))
    assert.isTrue(cost <= reserved)
    // Any usage at all (a provider over its word) is still capped at the reservation.
    assert.isTrue(actualCostMicros(spec, { inputTokens: inputUsed, outputTokens: outputUsed }, reserved) <= reserved)
  }, { arbitrary: { runs: 50 } })
})
