import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { CustomDomains } from "./custom-domains.ts"

/** Custom domain checks when due, each domain its own unit of failure; DNS is slow and checks rare, so few at once. */
export const domainWork: Effect.Effect<ReadonlyArray<Work>, never, CustomDomains> = Effect.map(CustomDomains, (domains) => [
  declareWork(domains.queue, { concurrency: 8, idlePoll: "5 seconds" })
])
