import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { DeveloperNotification, developerNotificationOf } from "../../src/outbound/google-play/google-payloads.ts"

// A Pub/Sub push carries the developer notification as base64 of UTF-8 JSON.
const pushOf = (data: string) => ({ message: { data, messageId: "m-1" } })
const base64OfBytes = (bytes: Uint8Array) => btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""))
const base64Of = (text: string) => base64OfBytes(new TextEncoder().encode(text))

describe("store notification parsing properties", () => {
  it.prop("every developer notification round-trips through a push", [DeveloperNotification], ([notification]) => {
    const json = JSON.stringify(notification)
    // What JSON carries of it (an optional field given as undefined is absent).
    assert.deepStrictEqual(Effect.runSync(developerNotificationOf(pushOf(base64Of(json)))), JSON.parse(json))
  })

  // Any data at all: arbitrary text, base64 of arbitrary text, base64 of arbitrary JSON values.
  const failsAsInput = (data: string) => {
    const exit = Effect.runSyncExit(developerNotificationOf(pushOf(data)))
    if (Exit.isFailure(exit)) {
      // A typed InvalidInput (a 400), never a defect (a 500).
      assert.isTrue(Exit.hasFails(exit) && !Exit.hasDies(exit), String(exit.cause))
      return
    }
    assert.isTrue(Schema.is(DeveloperNotification)(exit.value))
  }
  it.prop("any other data is a notification or an InvalidInput, never a defect", [Schema.String, Schema.Json], ([text, json]) => {
    failsAsInput(text)
    failsAsInput(base64Of(text))
    failsAsInput(base64Of(JSON.stringify(json)))
  })

  it("refuses malformed UTF-8 and lone surrogates", () => {
    for (const data of [base64OfBytes(Uint8Array.of(0xff, 0xfe, 0x7b)), base64Of('{"packageName":"\\ud800"}')]) {
      assert.isTrue(Exit.isFailure(Effect.runSyncExit(developerNotificationOf(pushOf(data)))), data)
    }
  })
})
