/** @atrium/adapters-webhook — the webhook transport over `node:http(s)`: signing on the wire, SSRF guard, pinned connections. */
export * from "./allow-networks.ts"
export * from "./attempt-error.ts"
export * from "./cidr.ts"
export * from "./destination.ts"
export * from "./ip-address.ts"
export * from "./pinned-connections.ts"
export * from "./pinned-lookup.ts"
export * from "./retry-after.ts"
export * from "./ssrf-guard.ts"
/** The `node:http(s)` implementation of the `WebhookTransport` port: `make`, `layerWith`. */
export * as WebhookTransportNode from "./node-webhook-transport.ts"
/** The `node:crypto` implementation of the `WebhookSigner` port: `nodeWebhookSigner`, `layer`. */
export * as WebhookSignerNode from "./node-webhook-signer.ts"
