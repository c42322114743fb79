import { Conflict, type PageRequest, type Unavailable, Workspace, type WorkspaceId, WorkspaceRepository, type WorkspaceSlug } from "@atrium/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { afterCursor, fetchSize, toPage } from "../shared/keyset-page.ts"
import { snakeCaseColumns } from "../shared/snake-case-columns.ts"
import { orUnavailable, sqlFailure } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

/** The `workspaces` row as the driver returns it (`timestamptz` as `Date`). */
const WorkspaceRow = Schema.Struct({
  ...Workspace.fields,
  createdAt: Schema.DateTimeUtcFromDate
}).pipe(snakeCaseColumns())

const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

// Named in the migration, so a slug collision is told apart from a duplicate id (a bug).
const slugConstraint = "workspaces_slug_key"

/** Postgres workspaces. */
export const WorkspaceRepositoryPg = Layer.effect(
  WorkspaceRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const { decode, findOne } = tableReads(sql, { name: "workspaces", columns: "id, name, slug, personal, created_at", Row: WorkspaceRow, Class: Workspace })

    const insert = Effect.fn("WorkspaceRepository.insert")(function*(workspace: Workspace) {
      yield* sql`
        INSERT INTO workspaces (id, name, slug, personal, created_at)
        VALUES (${workspace.id}, ${workspace.name}, ${workspace.slug}, ${workspace.personal}, ${DateTime.toDateUtc(workspace.createdAt)})
      `.pipe(
        Effect.catch((error: SqlError): Effect.Effect<never, Conflict | Unavailable> =>
          error.reason._tag === "UniqueViolation" && error.reason.constraint === slugConstraint
            ? Effect.fail(new Conflict({ detail: `The slug "${workspace.slug}" is taken` }))
            : sqlFailure(error)
        )
      )
    })

    const findById = Effect.fn("WorkspaceRepository.findById")(function*(id: WorkspaceId) {
      return yield* findOne(sql`id = ${id}`)
    })

    const findBySlug = Effect.fn("WorkspaceRepository.findBySlug")(function*(slug: WorkspaceSlug) {
      return yield* findOne(sql`slug = ${slug}`)
    })

    const count = sql`SELECT count(*)::int AS count FROM workspaces`.pipe(
      Effect.flatMap(decodeCount),
      Effect.map(([row]) => row.count),
      orUnavailable,
      Effect.withSpan("WorkspaceRepository.count")
    )

    const list = Effect.fn("WorkspaceRepository.list")(function*(page: PageRequest) {
      return yield* sql`
        SELECT id, name, slug, personal, created_at FROM workspaces
        WHERE ${afterCursor(sql, page)}
        ORDER BY created_at DESC, id COLLATE "C" DESC
        LIMIT ${fetchSize(page)}
      `.pipe(Effect.flatMap(decode), Effect.map((rows) => toPage(rows, page)), orUnavailable)
    })

    return WorkspaceRepository.of({ insert, findById, findBySlug, count, list })
  })
)
