// A loopback App Store Server API, Google OAuth token endpoint and Google Play Developer API, scripted by the test.
import { createServer, type ServerResponse } from "node:http"
import { makeWaiters } from "./waiters.ts"

/** One App Store subscription status as `GET /inApps/v1/subscriptions/{id}` lists it (signed parts made by the test). */
export interface FakeAppleStatus {
  readonly originalTransactionId: string
  readonly status: number
  readonly signedTransactionInfo: string
  readonly signedRenewalInfo: string
}

/** A Google one-time product purchase as `purchases.products.get` answers it; changed by acknowledge and consume. */
export interface FakePlayProduct {
  purchaseState: number
  acknowledgementState: number
  consumptionState: number
  readonly orderId: string
  readonly obfuscatedExternalAccountId?: string
}

/** A Google subscription as `purchases.subscriptionsv2.get` answers it (the fields Atrium reads). */
export interface FakePlaySubscription {
  subscriptionState: string
  acknowledgementState: string
  readonly latestOrderId: string
  readonly linkedPurchaseToken?: string
  readonly lineItems: ReadonlyArray<{ readonly productId: string; readonly expiryTime: string; readonly autoRenewingPlan: { readonly autoRenewEnabled: boolean } }>
}

/** A request the fake received. */
export interface FakeStoreCall {
  readonly method: string
  readonly path: string
}

/** The running fake and its script. */
export interface FakeStores {
  readonly url: string
  /** While true, every request is accepted and never answered (a stalled store). */
  stall: boolean
  readonly calls: Array<FakeStoreCall>
  readonly appleStatuses: Map<string, ReadonlyArray<FakeAppleStatus>>
  readonly appleTransactions: Map<string, string>
  /** Keyed by purchase token. */
  readonly playProducts: Map<string, FakePlayProduct>
  readonly playSubscriptions: Map<string, FakePlaySubscription>
  /** Resolves once `check` holds, checked again after each request the fake has answered. */
  readonly until: (check: () => boolean) => Promise<void>
  readonly close: () => Promise<void>
}

const json = (response: ServerResponse, status: number, value: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value))

// Google answers 400 when a purchase is not in a state for the operation (already consumed, for one).
const notValidState = (response: ServerResponse) =>
  json(response, 400, { error: { code: 400, message: "The purchase is not in a valid state to perform the desired operation." } })

/** Starts the fake on an ephemeral loopback port. */
export const startFakeStores = (): Promise<FakeStores> =>
  new Promise((resolve) => {
    const stalled: Array<ServerResponse> = []
    const state = {
      stall: false,
      calls: new Array<FakeStoreCall>(),
      appleStatuses: new Map<string, ReadonlyArray<FakeAppleStatus>>(),
      appleTransactions: new Map<string, string>(),
      playProducts: new Map<string, FakePlayProduct>(),
      playSubscriptions: new Map<string, FakePlaySubscription>()
    }
    const waiters = makeWaiters()
    const answer = (method: string, path: string, response: ServerResponse) => {
      state.calls.push({ method, path })
      if (state.stall) return void stalled.push(response)
      if (path === "/token") return json(response, 200, { access_token: "ya29.fake-access", expires_in: 3600 })
      const apple = /^\/apple\/inApps\/v1\/(transactions|subscriptions)\/([^/]+)$/.exec(path)
      if (apple !== null) {
        const [, kind, id = ""] = apple
        if (kind === "transactions") {
          const signed = state.appleTransactions.get(id)
          return signed === undefined ? json(response, 404, { errorCode: 4040010 }) : json(response, 200, { signedTransactionInfo: signed })
        }
        const statuses = state.appleStatuses.get(id)
        return statuses === undefined ? json(response, 404, { errorCode: 4040010 }) : json(response, 200, { data: [{ lastTransactions: statuses }] })
      }
      const google = /^\/androidpublisher\/v3\/applications\/[^/]+\/purchases\/(products|subscriptions|subscriptionsv2)\/(?:([^/]+)\/)?tokens\/([^/:]+)(?::(acknowledge|consume))?$/
        .exec(path)
      if (google === null) return json(response, 404, {})
      const [, collection, , token = "", action] = google
      if (collection === "products") {
        const product = state.playProducts.get(token)
        if (product === undefined) return json(response, 404, { error: { code: 404 } })
        if (action === undefined) return json(response, 200, product)
        if (product.purchaseState !== 0) return notValidState(response)
        if (action === "consume") {
          if (product.consumptionState === 1) return notValidState(response)
          product.consumptionState = 1
          product.acknowledgementState = 1
          return response.writeHead(204).end()
        }
        if (product.acknowledgementState === 1) return notValidState(response)
        product.acknowledgementState = 1
        return response.writeHead(204).end()
      }
      const subscription = state.playSubscriptions.get(token)
      if (subscription === undefined) return json(response, 404, { error: { code: 404 } })
      if (collection === "subscriptionsv2" && action === undefined) return json(response, 200, subscription)
      if (collection === "subscriptions" && action === "acknowledge") {
        if (subscription.acknowledgementState === "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED") return notValidState(response)
        subscription.acknowledgementState = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
        return response.writeHead(204).end()
      }
      json(response, 404, {})
    }
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => {
        answer(request.method ?? "", decodeURIComponent((request.url ?? "").split("?")[0] ?? ""), response)
        waiters.happened()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const fake: FakeStores = Object.assign(state, {
        url: `http://127.0.0.1:${port}`,
        until: waiters.until,
        close: () =>
          new Promise<void>((done) => {
            for (const response of stalled) response.destroy()
            server.closeAllConnections()
            server.close(() => done())
          })
      })
      resolve(fake)
    })
  })
