import { FeatureRequestId, FeatureRequests, FeatureRequestStatus } from "@atrium/domain"
import { Console, DateTime, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { operator, withDomain } from "./cli-support.ts"

const requestFlag = (name: string, description: string) => Flag.String(name).pipe(Flag.withSchema(FeatureRequestId), Flag.withDescription(description))
const settable = FeatureRequestStatus.literals.filter((status): status is Exclude<FeatureRequestStatus, "merged"> => status !== "merged")

const printed = (request: { readonly id: string; readonly status: string; readonly voteCount: number; readonly statusChangedAt: DateTime.Utc }) =>
  Console.log(JSON.stringify({ id: request.id, status: request.status, voteCount: request.voteCount, statusChangedAt: DateTime.formatIso(request.statusChangedAt) }))

/** Operator: a feature request's new status (notifies its voters and the author's workspace). */
export const setFeatureRequestStatus = Command.make(
  "set-feature-request-status",
  {
    id: requestFlag("id", "Feature request id (fr_…)"),
    status: Flag.Literals("status", settable).pipe(Flag.withDescription("The new status")),
    note: Flag.String("note").pipe(Flag.withDescription("Why, shown to voters"), Flag.optional)
  },
  ({ id, note, status }) =>
    withDomain(Effect.gen(function*() {
      yield* printed(yield* (yield* FeatureRequests).changeStatus(operator, id, status, note))
    }))
).pipe(Command.withDescription("Change a feature request's status"))

/** Operator: folds a request into another; its votes move there (one per user). */
export const mergeFeatureRequest = Command.make(
  "merge-feature-request",
  {
    id: requestFlag("id", "The request to merge away (fr_…)"),
    into: requestFlag("into", "The request that keeps the votes (fr_…)")
  },
  ({ id, into }) =>
    withDomain(Effect.gen(function*() {
      yield* printed(yield* (yield* FeatureRequests).merge(operator, id, into))
    }))
).pipe(Command.withDescription("Merge a feature request into another"))
