import { DateTime, Effect, Layer, Option } from "effect"
import { CustomDomain, DomainRepository } from "../domains/index.ts"
import { Conflict } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { type MemoryState, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const newestFirst = (items: Iterable<CustomDomain>) =>
  Array.from(items).sort((a, b) => millis(b.createdAt) - millis(a.createdAt) || b.id.localeCompare(a.id))
// The Postgres adapter's cursor format (base64url of `<createdAt millis>.<id>`), so a contract test can hold both to it.
const encodeCursor = (domain: CustomDomain) =>
  btoa(`${millis(domain.createdAt)}.${domain.id}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
const decodeCursor = (cursor: string): { readonly createdAt: number; readonly id: string } | undefined => {
  // Forgiving base64 (what `atob` reads) never has a length of 4n + 1; anything else in the alphabet decodes.
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor) || cursor.length % 4 === 1) return undefined
  const match = /^(-?\d{1,16})\.([0-9A-Za-z_]{1,100})$/.exec(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")))
  return match === null ? undefined : { createdAt: Number(match[1]), id: match[2] ?? "" }
}

/** Keyset paging, newest first, with the Postgres cursor: an unknown cursor reads from the start. */
const keysetPage = (items: ReadonlyArray<CustomDomain>, page: PageRequest): Page<CustomDomain> => {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor)
  const rest = after === undefined
    ? items
    : items.filter((d) => millis(d.createdAt) < after.createdAt || (millis(d.createdAt) === after.createdAt && d.id < after.id))
  const data = rest.slice(0, page.limit)
  const last = data.at(-1)
  return { data, nextCursor: rest.length > data.length && last !== undefined ? encodeCursor(last) : null }
}

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
      list: (workspaceId, page) => read.pipe(Effect.map((s) => keysetPage(newestFirst(inWorkspace(s, workspaceId)), page))),
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
          return [leased, { ...s, domains: leased.reduce((map, d) => withEntry(map, d.id, d), s.domains) }]
        })
    })
  })
)
