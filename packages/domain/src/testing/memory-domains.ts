import { DateTime, Effect, Layer, Option } from "effect"
import { CustomDomain, DomainRepository } from "../domains/index.ts"
import { Conflict } from "../shared/index.ts"
import { type MemoryState, pageOf, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const newestFirst = (items: Iterable<CustomDomain>) =>
  Array.from(items).sort((a, b) => millis(b.createdAt) - millis(a.createdAt) || b.id.localeCompare(a.id))
const inWorkspace = (s: MemoryState, workspaceId: string) => Array.from(s.domains.values()).filter((d) => d.workspaceId === workspaceId)

/** In-memory custom domains, with the same uniqueness and lease semantics as the Postgres version. */
export const DomainRepositoryMemory = Layer.effect(
  DomainRepository,
  Effect.gen(function*() {
    const { modify, read, write } = yield* useStore
    return DomainRepository.of({
      insert: (domain) =>
        modify((s): readonly [boolean, MemoryState] =>
          inWorkspace(s, domain.workspaceId).some((d) => d.hostname === domain.hostname)
            ? [false, s]
            : [true, { ...s, domains: withEntry(s.domains, domain.id, domain) }]
        ).pipe(Effect.flatMap((inserted) => inserted ? Effect.void : Effect.fail(new Conflict({ detail: "the workspace already has this hostname" })))),
      findById: (workspaceId, id) =>
        read.pipe(Effect.map((s) => Option.fromNullishOr(s.domains.get(id)).pipe(Option.filter((d) => d.workspaceId === workspaceId)))),
      list: (workspaceId, page) => read.pipe(Effect.map((s) => pageOf(newestFirst(inWorkspace(s, workspaceId)), page))),
      count: (workspaceId) => read.pipe(Effect.map((s) => inWorkspace(s, workspaceId).length)),
      lockHostname: (hostname) =>
        read.pipe(Effect.map((s) => Array.from(s.domains.values()).filter((d) => d.hostname === hostname).sort((a, b) => a.id.localeCompare(b.id)))),
      update: (domain) =>
        write((s) => s.domains.has(domain.id) ? { ...s, domains: withEntry(s.domains, domain.id, domain) } : s),
      delete: (workspaceId, id) =>
        modify((s): readonly [boolean, MemoryState] => {
          if (s.domains.get(id)?.workspaceId !== workspaceId) return [false, s]
          const domains = new Map(s.domains)
          domains.delete(id)
          return [true, { ...s, domains }]
        }),
      claimDue: (now, limit, leaseUntil) =>
        modify((s) => {
          const due = Array.from(s.domains.values())
            .filter((d) => Option.isSome(d.nextCheckAt) && !DateTime.isGreaterThan(d.nextCheckAt.value, now))
            .sort((a, b) =>
              millis(Option.getOrElse(a.nextCheckAt, () => now)) - millis(Option.getOrElse(b.nextCheckAt, () => now)) || a.id.localeCompare(b.id)
            )
            .slice(0, Math.max(0, limit))
          const leased = due.map((d) => new CustomDomain({ ...d, nextCheckAt: Option.some(leaseUntil) }))
          return [due, { ...s, domains: leased.reduce((map, d) => withEntry(map, d.id, d), s.domains) }]
        })
    })
  })
)
