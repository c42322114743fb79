import { Context, type Effect, type Option, Schema } from "effect"

/** Why a lookup could not be made: it says nothing about the records, so it never changes a domain's status. */
export const DnsFailureReason = Schema.Literals(["timeout", "servfail", "refused", "unreachable", "error"])
export type DnsFailureReason = typeof DnsFailureReason.Type

/** A DNS lookup that got no answer (as opposed to an answer saying "no such record"). */
export class DnsLookupFailed extends Schema.TaggedError<DnsLookupFailed>()("DnsLookupFailed", {
  reason: DnsFailureReason,
  detail: Schema.String
}) {}

/** Port: the DNS as the server sees it (an adapter on `node:dns` in the app; `DnsResolverMemory` in tests). */
export class DnsResolver extends Context.Service<DnsResolver, {
  /** The TXT records at `name`, each record's strings joined; empty when the name or the record does not exist (NXDOMAIN, NODATA). */
  readonly resolveTxt: (name: string) => Effect.Effect<ReadonlyArray<string>, DnsLookupFailed>
  /** The CNAME target of `name`, lower-case without the trailing dot; none when there is no CNAME. */
  readonly resolveCname: (name: string) => Effect.Effect<Option.Option<string>, DnsLookupFailed>
}>()("@atrium/domain/DnsResolver") {}
