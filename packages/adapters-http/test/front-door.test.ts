import { Domain } from "@atrium/domain/testing"
import { assert, describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import { AcceptedCredentials, Api, ApiMiddlewareLayer, RateLimiterMemory } from "../src/index.ts"
import { defaultOptions } from "./harness.ts"

// What a group's front door is made of, read off the built `Api`: the OpenAPI documents do not show middleware.
const doorOf = (group: (typeof Api.groups)[keyof typeof Api.groups]) => {
  const endpoints = Object.values(group.endpoints)
  const chains = new Set(endpoints.map((endpoint) => [...endpoint.middlewares].map((key) => key.key.replace("@atrium/adapters-http/", "")).join(" < ")))
  const prefixes = new Set(endpoints.map((endpoint) => endpoint.path.split("/").slice(0, 3).join("/")))
  return {
    chains: [...chains],
    prefixes: [...prefixes],
    accepted: Context.get(group.annotations, AcceptedCredentials),
    takesPayloads: endpoints.some((endpoint) => endpoint.payload.size > 0),
    strictPayloads: Context.getOrUndefined(group.annotations, HttpApi.PayloadParseOptions)?.onExcessProperty === "error"
  }
}

// One gate per group; `/api/v1` groups say which credentials their gate takes, the other gates know.
const expected: Record<string, { readonly chain: string; readonly prefix: string; readonly accepted: ReadonlyArray<string> }> = {
  v1: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key"] },
  v1Domains: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key"] },
  v1Purchases: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key"] },
  webhooks: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key"] },
  schedules: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key"] },
  aiTasks: { chain: "V1Gate", prefix: "/api/v1", accepted: ["api_key", "member"] },
  mobileWorkspace: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileTeam: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileDevelopers: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileWebhooks: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileSchedules: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobilePurchases: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileDomains: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobileFeedback: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  mobilePush: { chain: "MobileGate", prefix: "/api/mobile", accepted: [] },
  authSession: { chain: "SessionGate", prefix: "/api/auth", accepted: [] },
  mobileSession: { chain: "SessionGate", prefix: "/api/mobile", accepted: [] },
  auth: { chain: "PublicGate", prefix: "/api/auth", accepted: [] },
  storeNotifications: { chain: "PublicGate", prefix: "/api/store-notifications", accepted: [] }
}

describe("the front doors of the contract's groups", () => {
  it("every group is listed here, and nothing else", () => {
    expect(Object.keys(Api.groups).sort()).toEqual(Object.keys(expected).sort())
  })

  for (const [identifier, door] of Object.entries(expected)) {
    it(`${identifier}: ${door.prefix}, ${door.chain}, accepts ${door.accepted.join(" or ") || "what its gate takes"}`, () => {
      const group = Object.values(Api.groups).find((candidate) => candidate.identifier === identifier)
      expect(group, identifier).toBeDefined()
      if (group === undefined) return
      const actual = doorOf(group)
      expect(actual.chains).toEqual([door.chain])
      expect(actual.prefixes).toEqual([door.prefix])
      expect(actual.accepted).toEqual(door.accepted)
      // Store notifications take the stores' bodies as sent; every other body refuses unknown fields.
      if (actual.takesPayloads) expect(actual.strictPayloads).toBe(identifier !== "storeNotifications")
    })
  }
})

// Every route of the contract with what it declares, as the server sees them when it builds the route.
const routes = () => {
  const found: Array<{ readonly endpoint: HttpApiEndpoint.Top; readonly group: HttpApiGroup.Top }> = []
  HttpApi.reflect(Api, { onGroup: () => {}, onEndpoint: ({ endpoint, group }) => found.push({ endpoint, group }) })
  return found
}

describe("what the contract declares is what the server runs", () => {
  it("every route declares exactly one middleware", () => {
    const others = routes().filter(({ endpoint }) => endpoint.middlewares.size !== 1).map(({ endpoint }) => `${endpoint.method} ${endpoint.path}`)
    assert.deepStrictEqual(others, [])
  })

  it.effect("the server implements each declared gate, and none hands its route over untouched (no pass-through)", () =>
    Effect.gen(function*() {
      const served = yield* Layer.build(ApiMiddlewareLayer(defaultOptions))
      const handler = Effect.succeed(HttpServerResponse.empty())
      const passedThrough: Array<string> = []
      for (const route of routes()) {
        for (const declared of route.endpoint.middlewares) {
          const gate: ((effect: typeof handler, at: typeof route) => unknown) | undefined = Context.getOrUndefined(served, declared)
          assert.isDefined(gate, `${declared.key} is declared but not served`)
          if (gate !== undefined && gate(handler, route) === handler) passedThrough.push(`${declared.key} at ${route.endpoint.path}`)
        }
      }
      assert.deepStrictEqual(passedThrough, [])
    }).pipe(Effect.provide(Layer.merge(Domain.layerMemory, RateLimiterMemory))))
})
