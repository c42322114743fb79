import { Effect } from "effect"
import { declareWork, type Work } from "../shared/index.ts"
import { PasswordReset } from "./password-reset.ts"

/** Password reset requests, which become mail when the address is known. */
export const identityWork: Effect.Effect<ReadonlyArray<Work>, never, PasswordReset> = Effect.map(PasswordReset, (reset) => [
  declareWork(reset.requestQueue, { concurrency: 4, idlePoll: "250 millis" }, "password_reset_requests")
])
