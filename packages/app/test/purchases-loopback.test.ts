import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { generateKeyPairSync } from "node:crypto"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { type ServerProcess, startServer, tempWorkDir } from "./server-process.ts"
import { untilRows } from "./support/embedded-rows.ts"
import { type FakeStores, startFakeStores } from "./support/fake-stores.ts"
import { testApplePki } from "../../adapters-http/test/stores/test-certificates.ts"

// The real server process (embedded Postgres, real store clients, its workers) against loopback fakes of both stores.
const workDir = tempWorkDir("atrium-purchases-")
const dataDir = join(workDir, "data")
const pki = testApplePki()
const bundleId = "com.example.atrium"
const day = 86_400_000

let stores: FakeStores
let server: ServerProcess

beforeAll(async () => {
  stores = await startFakeStores()
  server = await startServer({
    ATRIUM_DATA_DIR: dataDir,
    ATRIUM_STORE_PRODUCTS: JSON.stringify([
      { store: "app_store", productId: "pro.monthly", kind: "subscription", features: ["ai.advanced"] },
      { store: "app_store", productId: "pro.yearly", kind: "subscription", features: ["ai.advanced", "domains.custom"] },
      { store: "app_store", productId: "team.monthly", kind: "subscription", features: ["ai.standard", "domains.custom"] },
      { store: "play_store", productId: "pro_monthly", kind: "subscription", features: ["ai.advanced"] },
      { store: "play_store", productId: "lifetime", kind: "non_consumable", features: ["ai.advanced"] },
      { store: "play_store", productId: "credits.pack", kind: "consumable", features: [], credits: 2_000_000 }
    ]),
    ATRIUM_APPLE_BUNDLE_ID: bundleId,
    ATRIUM_APPLE_ISSUER_ID: "issuer",
    ATRIUM_APPLE_KEY_ID: "KEY1",
    ATRIUM_APPLE_PRIVATE_KEY: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    ATRIUM_APPLE_API_URL: `${stores.url}/apple`,
    ATRIUM_APPLE_ROOT_CERTIFICATES: pki.root.cert.toString(),
    ATRIUM_GOOGLE_PACKAGE_NAME: bundleId,
    ATRIUM_GOOGLE_SERVICE_ACCOUNT: JSON.stringify({
      client_email: "play@example.iam.gserviceaccount.com",
      private_key: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    }),
    ATRIUM_GOOGLE_TOKEN_URL: `${stores.url}/token`,
    ATRIUM_GOOGLE_API_URL: stores.url,
    ATRIUM_GOOGLE_PUSH_AUDIENCE: "https://atrium.example/push",
    ATRIUM_GOOGLE_PUSH_SERVICE_ACCOUNT: "pubsub@example.iam.gserviceaccount.com",
    ATRIUM_GOOGLE_JWKS_URL: `${stores.url}/jwks`
  })
}, 120_000)

afterAll(async () => {
  await server.stop()
  await stores.close()
  rmSync(workDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
})

interface Answer {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly text: string
}

const call = async (path: string, init: { method?: string; body?: unknown; session?: string } = {}): Promise<Answer> => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...(init.session === undefined ? {} : { authorization: `Bearer ${init.session}` }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  const parsed: unknown = text === "" ? {} : JSON.parse(text)
  return { status: response.status, text, body: typeof parsed === "object" && parsed !== null ? { ...parsed } : {} }
}

let accounts = 0
/** A new account: its personal workspace, where it is the owner. */
const signUp = async (): Promise<string> => {
  const signedUp = await call("/api/auth/sign-up", {
    method: "POST",
    body: { email: `buyer${++accounts}-${Date.now()}@example.com`, password: "correct horse battery", name: "Buyer" }
  })
  expect(signedUp.status, signedUp.text).toBe(201)
  const session: unknown = signedUp.body.session
  return typeof session === "object" && session !== null && "accessToken" in session ? String(session.accessToken) : ""
}

/** Resolves once the server's inbox has processed the App Store notifications of these UUIDs (the workers run on their own loops). */
const processed = (...uuids: ReadonlyArray<string>) =>
  untilRows(dataDir, (sql) =>
    sql<{ readonly done: number }>`
      SELECT count(*)::int AS done FROM store_notifications WHERE source = 'apple' AND external_id = ANY(${uuids}) AND processed_at IS NOT NULL
    `, ([row]) => row?.done === uuids.length)

const settleCalls = (token: string) => stores.calls.filter((c) => c.method === "POST" && c.path.includes(`/tokens/${token}:`)).map((c) => c.path.split(":").at(-1))

/** An App Store Server Notification V2, signed by the test's Apple chain, posted to the notification route. */
const notifyApple = (type: string, uuid: string, signedAt: number, tx: object, subtype?: string) =>
  call("/api/store-notifications/apple", {
    method: "POST",
    body: {
      signedPayload: pki.sign({
        notificationType: type,
        ...(subtype === undefined ? {} : { subtype }),
        notificationUUID: uuid,
        signedDate: signedAt,
        data: { bundleId, environment: "Production", signedTransactionInfo: pki.sign(tx), signedRenewalInfo: pki.sign({ signedDate: signedAt, autoRenewStatus: 1 }) }
      })
    }
  })

const access = async (session: string) => (await call("/api/mobile/entitlement", { session })).body.access

const sync = (session: string, body: unknown) => call("/api/mobile/purchases/sync", { method: "POST", body, session })

/** An App Store subscription scripted on the fake (its latest transaction, as the store answers it) and its signed transaction. */
const appleSubscription = (original: string, signedAt: number, latest: { transactionId?: string; productId?: string; days?: number } = {}) => {
  const tx = {
    transactionId: latest.transactionId ?? original,
    originalTransactionId: original,
    bundleId,
    productId: latest.productId ?? "pro.monthly",
    environment: "Production",
    signedDate: signedAt,
    expiresDate: signedAt + (latest.days ?? 30) * day
  }
  // Apple answers the group's latest state whichever of its transactions is asked about.
  for (const id of new Set([original, tx.transactionId])) {
    stores.appleStatuses.set(id, [{
      originalTransactionId: original,
      status: 1,
      signedTransactionInfo: pki.sign(tx),
      signedRenewalInfo: pki.sign({ signedDate: signedAt, autoRenewStatus: 1 })
    }])
  }
  return { tx, signed: pki.sign(tx) }
}

describe("purchases against loopback stores", () => {
  it("a stalled store: the sync answers 202 pending within the budget, for either store", async () => {
    const session = await signUp()
    const apple = appleSubscription("stall-1", Date.now())
    stores.playProducts.set("stall-token", { purchaseState: 0, acknowledgementState: 0, consumptionState: 0, orderId: "GPA.stall" })
    stores.stall = true
    const timed = async (body: unknown) => {
      const started = performance.now()
      const answer = await sync(session, body)
      return { answer, elapsed: performance.now() - started }
    }
    try {
      const [fromApple, fromGoogle] = await Promise.all([
        timed({ store: "app_store", signedTransaction: apple.signed }),
        timed({ store: "play_store", purchaseToken: "stall-token", productId: "lifetime" })
      ])
      for (const { answer, elapsed } of [fromApple, fromGoogle]) {
        expect(answer.status, answer.text).toBe(202)
        expect(answer.body).toMatchObject({ status: "pending", retryAfterSeconds: 60 })
        expect(elapsed).toBeLessThan(6_000)
      }
      // The stores were asked (and stalled): the budget, not a refusal to call, bounded the answer.
      expect(stores.calls.some((c) => c.path === "/apple/inApps/v1/subscriptions/stall-1")).toBe(true)
      expect(stores.calls.some((c) => c.path === "/token" || c.path.includes("/tokens/stall-token"))).toBe(true)
    } finally {
      stores.stall = false
    }
    // Nothing was granted while the store was silent.
    const entitlement = await call("/api/mobile/entitlement", { session })
    expect(entitlement.body.access).not.toBe("full")
  }, 30_000)

  it("Google purchases are consumed or acknowledged after the grant, in the background, once; one already settled is left alone", async () => {
    const session = await signUp()
    const future = new Date(Date.now() + 30 * day).toISOString()
    stores.playProducts.set("g-credits", { purchaseState: 0, acknowledgementState: 0, consumptionState: 0, orderId: "GPA.1" })
    stores.playProducts.set("g-lifetime", { purchaseState: 0, acknowledgementState: 0, consumptionState: 0, orderId: "GPA.2" })
    stores.playProducts.set("g-settled", { purchaseState: 0, acknowledgementState: 1, consumptionState: 0, orderId: "GPA.3" })
    stores.playSubscriptions.set("g-sub", {
      subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
      acknowledgementState: "ACKNOWLEDGEMENT_STATE_PENDING",
      latestOrderId: "GPA.4",
      lineItems: [{ productId: "pro_monthly", expiryTime: future, autoRenewingPlan: { autoRenewEnabled: true } }]
    })
    for (const [purchaseToken, productId] of [["g-credits", "credits.pack"], ["g-lifetime", "lifetime"], ["g-settled", "lifetime"], ["g-sub", "pro_monthly"]]) {
      const answer = await sync(session, { store: "play_store", purchaseToken, productId })
      expect(answer.status, answer.text).toBe(200)
    }
    const usage = await call("/api/mobile/usage", { session })
    expect(usage.body.creditBalanceMicros).toBe(2_000_000)
    // The store's side is settled once the fake has answered the consumption and both acknowledgements.
    await stores.until(() =>
      stores.playProducts.get("g-credits")?.consumptionState === 1 &&
      stores.playProducts.get("g-lifetime")?.acknowledgementState === 1 &&
      stores.playSubscriptions.get("g-sub")?.acknowledgementState === "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
    )
    // Our record follows, and the reconciler has nothing left to do: each of the four is acknowledged and none is due
    // again within the hour (nor leased: a lease is 60 s), so no second call comes, whatever the wait.
    const list = await call("/api/mobile/purchases", { session })
    const ids = Array.isArray(list.body.data) ? list.body.data.map((p: unknown) => typeof p === "object" && p !== null && "id" in p ? String(p.id) : "") : []
    expect(ids).toHaveLength(4)
    await untilRows(dataDir, (sql) =>
      sql<{ readonly done: number }>`
        SELECT count(*)::int AS done FROM purchases WHERE id = ANY(${ids})
        AND acknowledged_at IS NOT NULL AND (next_check_at IS NULL OR next_check_at > now() + interval '1 hour')
      `, ([row]) => row?.done === 4)
    const acknowledged = await call("/api/mobile/purchases", { session })
    expect(Array.isArray(acknowledged.body.data) && acknowledged.body.data.every((p: unknown) => typeof p === "object" && p !== null && "acknowledgedAt" in p && p.acknowledgedAt !== null)).toBe(true)
    expect(settleCalls("g-credits")).toEqual(["consume"])
    expect(settleCalls("g-lifetime")).toEqual(["acknowledge"])
    expect(settleCalls("g-sub")).toEqual(["acknowledge"])
    expect(settleCalls("g-settled")).toEqual([])
    expect((await call("/api/mobile/entitlement", { session })).body.access).toBe("full")
    // The credits were granted once, before and after the consumption.
    expect((await call("/api/mobile/usage", { session })).body.creditBalanceMicros).toBe(2_000_000)
  }, 60_000)

  it("App Store upgrade, downgrade and crossgrade through signed notifications: the purchase follows the store's product, and so do its grants", async () => {
    const session = await signUp()
    const features = async () => {
      const answer = await call("/api/mobile/entitlement", { session })
      const list = Array.isArray(answer.body.entitlements) ? answer.body.entitlements : []
      return list.map((e: unknown) => typeof e === "object" && e !== null && "feature" in e ? String(e.feature) : "").toSorted()
    }
    const product = async () => {
      const list = await call("/api/mobile/purchases", { session })
      const [first] = Array.isArray(list.body.data) ? list.body.data : []
      return typeof first === "object" && first !== null && "productId" in first ? first.productId : null
    }
    const start = Date.now()
    const monthly = appleSubscription("grade-1", start)
    expect((await sync(session, { store: "app_store", signedTransaction: monthly.signed })).status).toBe(200)
    expect(await features()).toEqual(["ai.advanced"])

    // Upgrade: immediate, a new transaction for the yearly product under the same original transaction.
    const yearly = appleSubscription("grade-1", start + 1_000, { transactionId: "grade-2", productId: "pro.yearly", days: 365 })
    const upgraded = await notifyApple("DID_CHANGE_RENEWAL_PREF", "grade-up", start + 1_000, yearly.tx, "UPGRADE")
    expect(upgraded.status, upgraded.text).toBe(200)
    await processed("grade-up")
    expect(await product()).toBe("pro.yearly")
    expect(await features()).toEqual(["ai.advanced", "domains.custom"])
    const availability = await call("/api/mobile/purchases/availability?platform=ios", { session })
    const owned = Array.isArray(availability.body.products)
      ? availability.body.products.filter((p: unknown) => typeof p === "object" && p !== null && "owned" in p && p.owned === true)
      : []
    expect(owned.map((p: unknown) => typeof p === "object" && p !== null && "productId" in p ? p.productId : null)).toEqual(["pro.yearly"])
    // The app syncs the superseded monthly transaction; the store answers "yearly, active", which decides.
    const superseded = await sync(session, { store: "app_store", signedTransaction: monthly.signed })
    expect(superseded.status, superseded.text).toBe(200)
    expect(superseded.text).toContain("\"productId\":\"pro.yearly\"")
    expect(await features()).toEqual(["ai.advanced", "domains.custom"])

    // Downgrade: chosen now, billed at renewal; until then nothing changes.
    const downgraded = await notifyApple("DID_CHANGE_RENEWAL_PREF", "grade-down", start + 2_000, yearly.tx, "DOWNGRADE")
    expect(downgraded.status, downgraded.text).toBe(200)
    const renewedAt = start + 3_000
    const renewed = appleSubscription("grade-1", renewedAt, { transactionId: "grade-3", productId: "pro.monthly" })
    expect((await notifyApple("DID_RENEW", "grade-renew", renewedAt, renewed.tx)).status).toBe(200)
    await processed("grade-down", "grade-renew")
    expect(await product()).toBe("pro.monthly")
    expect(await features()).toEqual(["ai.advanced"])

    // Crossgrade to a product of the same duration: immediate.
    const team = appleSubscription("grade-1", start + 4_000, { transactionId: "grade-4", productId: "team.monthly" })
    expect((await notifyApple("DID_CHANGE_RENEWAL_PREF", "grade-cross", start + 4_000, team.tx, "UPGRADE")).status).toBe(200)
    await processed("grade-cross")
    expect(await product()).toBe("team.monthly")
    expect(await features()).toEqual(["ai.standard", "domains.custom"])

    const audit = await call("/api/mobile/audit?limit=100", { session })
    expect(audit.text.split("purchase.product_changed").length - 1).toBe(3)
  }, 60_000)

  it("App Store REFUND then REFUND_REVERSED through the notification route: the grant goes, then comes back, audited", async () => {
    const session = await signUp()
    const now = Date.now()
    const sub = appleSubscription("rr-1", now)
    const synced = await sync(session, { store: "app_store", signedTransaction: sub.signed })
    expect(synced.status, synced.text).toBe(200)
    expect(await access(session)).toBe("full")
    const refund = await notifyApple("REFUND", "rr-refund", now + 1_000, { ...sub.tx, signedDate: now + 1_000, revocationDate: now + 1_000 })
    expect(refund.status, refund.text).toBe(200)
    await processed("rr-refund")
    expect(await access(session)).not.toBe("full")
    const reversed = await notifyApple("REFUND_REVERSED", "rr-reversed", now + 2_000, { ...sub.tx, signedDate: now + 2_000 })
    expect(reversed.status, reversed.text).toBe(200)
    await processed("rr-reversed")
    expect(await access(session)).toBe("full")
    const purchases = await call("/api/mobile/purchases", { session })
    expect(purchases.text).toContain("\"status\":\"active\"")
    const audit = await call("/api/mobile/audit?limit=100", { session })
    expect(audit.status, audit.text).toBe(200)
    expect(audit.text).toContain("purchase.refunded")
    expect(audit.text).toContain("purchase.refund_reversed")
  }, 60_000)

  it("a Google upgrade carrying linkedPurchaseToken: the old purchase is replaced and grants no more, the new one grants", async () => {
    const session = await signUp()
    const future = new Date(Date.now() + 30 * day).toISOString()
    const active = (orderId: string, linked?: string) => ({
      subscriptionState: "SUBSCRIPTION_STATE_ACTIVE",
      acknowledgementState: "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
      latestOrderId: orderId,
      ...(linked === undefined ? {} : { linkedPurchaseToken: linked }),
      lineItems: [{ productId: "pro_monthly", expiryTime: future, autoRenewingPlan: { autoRenewEnabled: true } }]
    })
    stores.playSubscriptions.set("up-old", active("GPA.OLD"))
    expect((await sync(session, { store: "play_store", purchaseToken: "up-old", productId: "pro_monthly" })).status).toBe(200)
    stores.playSubscriptions.set("up-new", active("GPA.NEW", "up-old"))
    expect((await sync(session, { store: "play_store", purchaseToken: "up-new", productId: "pro_monthly" })).status).toBe(200)
    const list = await call("/api/mobile/purchases", { session })
    const statuses = Array.isArray(list.body.data)
      ? list.body.data.map((p: unknown) => typeof p === "object" && p !== null && "status" in p ? p.status : null)
      : []
    expect(statuses.toSorted()).toEqual(["active", "replaced"])
    const entitlement = await call("/api/mobile/entitlement", { session })
    expect(entitlement.body.access).toBe("full")
    // One grant, the new purchase's: the old one's ended with it.
    const grants = Array.isArray(entitlement.body.entitlements) ? entitlement.body.entitlements : []
    expect(grants.length, entitlement.text).toBe(1)
    const audit = await call("/api/mobile/audit?limit=100", { session })
    expect(audit.text).toContain("purchase.replaced")
  }, 30_000)
})
