/** Webhook endpoints, secrets, the delivery queue and attempts on Postgres. */
export * from "./delivery-repository-pg.ts"
export * from "./webhook-endpoint-repository-pg.ts"
export * from "./webhook-rows.ts"
