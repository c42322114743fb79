import { Context, Effect, Layer, Option, Ref } from "effect"
import { DnsLookupFailed, type DnsFailureReason, DnsResolver } from "../domains/index.ts"

/** What a scripted name answers: records, or a lookup that fails (SERVFAIL, timeout…). */
export type ZoneEntry =
  | { readonly _tag: "Records"; readonly txt: ReadonlyArray<string>; readonly cname?: string | undefined }
  | { readonly _tag: "Fails"; readonly reason: DnsFailureReason }
  | { readonly _tag: "Hangs" }

/** A name whose lookups never answer. */
export const lookupHangs: ZoneEntry = { _tag: "Hangs" }

/** The scripted DNS: names (lower-case, no trailing dot) to answers, and every name asked for, with the time asked. */
export class DnsZone extends Context.Service<DnsZone, {
  readonly entries: Ref.Ref<ReadonlyMap<string, ZoneEntry>>
  readonly queries: Ref.Ref<ReadonlyArray<{ readonly name: string; readonly type: "TXT" | "CNAME"; readonly atMillis: number }>>
}>()("@atrium/domain/testing/DnsZone") {}

/** Sets what `name` answers. */
export const setZone = (name: string, entry: ZoneEntry) =>
  Effect.flatMap(DnsZone, (zone) => Ref.update(zone.entries, (entries) => new Map(entries).set(name.toLowerCase(), entry)))

/** TXT records (and optionally a CNAME) for a name. */
export const records = (txt: ReadonlyArray<string>, cname?: string): ZoneEntry => ({ _tag: "Records", txt, cname })

/** A name whose lookups fail. */
export const lookupFails = (reason: DnsFailureReason): ZoneEntry => ({ _tag: "Fails", reason })

const nameKey = (name: string) => name.toLowerCase().replace(/\.$/, "")

/** In-memory resolver over a `DnsZone`: unknown names answer NXDOMAIN (no records), like the real DNS. */
export const DnsResolverMemory = Layer.effect(
  DnsResolver,
  Effect.gen(function*() {
    const zone = yield* DnsZone
    const ask = (name: string, type: "TXT" | "CNAME") =>
      Effect.gen(function*() {
        const atMillis = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        yield* Ref.update(zone.queries, (all) => [...all, { name: nameKey(name), type, atMillis }])
        const entry = (yield* Ref.get(zone.entries)).get(nameKey(name))
        if (entry?._tag === "Fails") return yield* new DnsLookupFailed({ reason: entry.reason, detail: `scripted ${entry.reason}` })
        if (entry?._tag === "Hangs") return yield* Effect.never
        return entry
      })
    return DnsResolver.of({
      resolveTxt: (name) => ask(name, "TXT").pipe(Effect.map((entry) => entry?.txt ?? [])),
      resolveCname: (name) => ask(name, "CNAME").pipe(Effect.map((entry) => Option.fromNullishOr(entry?.cname)))
    })
  })
).pipe(Layer.provideMerge(Layer.effect(
  DnsZone,
  Effect.all({
    entries: Ref.make<ReadonlyMap<string, ZoneEntry>>(new Map()),
    queries: Ref.make<ReadonlyArray<{ readonly name: string; readonly type: "TXT" | "CNAME"; readonly atMillis: number }>>([])
  }).pipe(Effect.map(DnsZone.of))
)))
