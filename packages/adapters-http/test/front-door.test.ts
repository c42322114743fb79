import { describe, expect, it } from "@effect/vitest"
import { Context } from "effect"
import { HttpApi } from "effect/http-api"
import { AcceptedCredentials, Api } from "@atrium/client"

// What a group's front door is made of, read off the built `Api`: the OpenAPI documents do not show middleware order.
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

const v1Chain = "RequestValidation < Authorization < RateLimit < Authentication"
const memberChain = `${v1Chain} < NoStore`
const sessionChain = "RequestValidation < RateLimit < SessionAuthentication < NoStore"
const publicChain = "RequestValidation < NoStore"

// Innermost first; every endpoint of a group sits behind the same door.
const expected: Record<string, { readonly chain: string; readonly prefix: string; readonly accepted: ReadonlyArray<string> }> = {
  v1: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key"] },
  v1Domains: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key"] },
  v1Purchases: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key"] },
  webhooks: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key"] },
  schedules: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key"] },
  aiTasks: { chain: v1Chain, prefix: "/api/v1", accepted: ["api_key", "member"] },
  mobileWorkspace: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileTeam: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileDevelopers: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileWebhooks: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileSchedules: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobilePurchases: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileDomains: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobileFeedback: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  mobilePush: { chain: memberChain, prefix: "/api/mobile", accepted: ["member"] },
  authSession: { chain: sessionChain, prefix: "/api/auth", accepted: [] },
  mobileSession: { chain: sessionChain, prefix: "/api/mobile", accepted: [] },
  auth: { chain: publicChain, prefix: "/api/auth", accepted: [] },
  storeNotifications: { chain: publicChain, prefix: "/api/store-notifications", accepted: [] }
}

describe("the front doors of the contract's groups", () => {
  it("every group is listed here, and nothing else", () => {
    expect(Object.keys(Api.groups).sort()).toEqual(Object.keys(expected).sort())
  })

  for (const [identifier, door] of Object.entries(expected)) {
    it(`${identifier}: ${door.prefix}, ${door.chain}, accepts ${door.accepted.join(" or ") || "no bearer kind"}`, () => {
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
