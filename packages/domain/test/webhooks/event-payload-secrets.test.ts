import { assert, describe, it } from "@effect/vitest"
import { eventCatalog, EventType } from "@atrium/domain"
import { Arbitrary, Effect, Schema } from "effect"

// Shapes of every secret Atrium handles; none may appear in an event payload.
const secretShapes = [/sk_(?:live|test)_[0-9A-Za-z]{20,}/, /whsec_[A-Za-z0-9+/=]{20,}/, /\b(?:at|rt|it)_[0-9A-Za-z]{30,}/, /\$argon2id\$/]
// Field names that would mean a payload carries a secret or what protects one (`inputTokens` counts are fine).
const secretField = /secret|token$|password|digest|hash|plaintext|credential|pepper|sealed/i

const fieldNames = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value)
    ? value.flatMap(fieldNames)
    : typeof value === "object" && value !== null
    ? Object.entries(value).flatMap(([key, inner]) => [key, ...fieldNames(inner)])
    : []

describe("event payloads carry no secrets", () => {
  it("the catalog defines every event type, and no payload schema has a secret-like field", () => {
    assert.deepStrictEqual(Object.keys(eventCatalog).sort(), [...EventType.literals].sort())
    for (const type of EventType.literals) {
      const properties = fieldNames(Schema.toJsonSchemaDocument(eventCatalog[type].data).schema)
      assert.deepStrictEqual(properties.filter((name) => secretField.test(name) && name !== "properties"), [], type)
    }
  })

  it.effect("generated payloads of every type encode to JSON without secret-shaped values or fields", () =>
    Effect.gen(function*() {
      for (const type of EventType.literals) {
        const schema = eventCatalog[type].data
        const samples = yield* Arbitrary.sampleEffect(Arbitrary.schema(schema), { count: 50 })
        assert.isAbove(samples.length, 0, type)
        for (const sample of samples) {
          const encoded = yield* Schema.encodeUnknownEffect(Schema.toCodecJson(schema))(sample)
          const json = JSON.stringify(encoded)
          for (const shape of secretShapes) assert.notMatch(json, shape, type)
          assert.deepStrictEqual(fieldNames(encoded).filter((name) => secretField.test(name)), [], type)
        }
      }
    }))
})
