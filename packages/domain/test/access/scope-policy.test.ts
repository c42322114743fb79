import { assert, describe, it } from "@effect/vitest"
import { ApiKeyScope, scopeAllows } from "@atrium/domain"

const scopes = ApiKeyScope.literals

describe("scope policy", () => {
  it("write implies every scope", () => {
    for (const required of scopes) assert.isTrue(scopeAllows(["write"], required))
  })

  it("a scope allows itself and nothing else unless it is write", () => {
    for (const granted of scopes) {
      for (const required of scopes) {
        assert.strictEqual(scopeAllows([granted], required), granted === "write" || granted === required, `${granted} → ${required}`)
      }
    }
  })

  it("no scopes allow nothing", () => {
    for (const required of scopes) assert.isFalse(scopeAllows([], required))
  })
})
