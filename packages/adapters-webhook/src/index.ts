/** @atrium/adapters-webhook — the webhook transport over `node:http(s)`: signing on the wire, SSRF guard, pinned connections. */
export * from "./attempt-error.ts"
export * from "./destination.ts"
export * from "./ip-networks.ts"
export * from "./pinned-connections.ts"
export * from "./retry-after.ts"
export * from "./ssrf-guard.ts"
/** The `node:http(s)` implementation of the `WebhookTransport` port, with its `node:crypto` signer: `make`, `signer`, `layerWith`. */
export * as WebhookTransportNode from "./node-webhook-transport.ts"
