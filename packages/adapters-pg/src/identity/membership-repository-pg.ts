import {
  Conflict,
  type Member,
  Membership,
  type MembershipId,
  MembershipRepository,
  type PageRequest,
  type Unavailable,
  User,
  type UserId,
  Workspace,
  type WorkspaceId,
  type WorkspaceMembership
} from "@atrium/domain"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { MembershipRow, MembershipWorkspaceRow, MemberUserRow } from "./identity-rows.ts"
import { afterCursorAscending, fetchSize, toPageBy } from "../shared/keyset-page.ts"
import { orUnavailable, sqlFailure } from "../shared/sql-errors.ts"
import { tableReads } from "../shared/table-reads.ts"

const decodeMemberUsers = Schema.decodeUnknownEffect(Schema.Array(MemberUserRow))
const decodeMembershipWorkspaces = Schema.decodeUnknownEffect(Schema.Array(MembershipWorkspaceRow))
const decodeCount = Schema.decodeUnknownEffect(Schema.Tuple([Schema.Struct({ count: Schema.Int })]))

const columns = "id, workspace_id, user_id, role, created_at"

// Named in the migration, so a second membership of the same user is told apart from a duplicate id (a bug).
const memberConstraint = "memberships_workspace_user_key"

/** Postgres memberships, unique per workspace and user; counting owners locks them for the transaction. */
export const MembershipRepositoryPg = Layer.effect(
  MembershipRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const { decode: toMemberships, findOne, findInWorkspace } = tableReads(sql, { name: "memberships", columns, Row: MembershipRow, Class: Membership })

    const insert = Effect.fn("MembershipRepository.insert")(function*(membership: Membership) {
      yield* sql`
        INSERT INTO memberships (${sql.literal(columns)})
        VALUES (${membership.id}, ${membership.workspaceId}, ${membership.userId}, ${membership.role}, ${DateTime.toDateUtc(membership.createdAt)})
      `.pipe(
        Effect.catch((error: SqlError): Effect.Effect<never, Conflict | Unavailable> =>
          error.reason._tag === "UniqueViolation" && error.reason.constraint === memberConstraint
            ? Effect.fail(new Conflict({ detail: "Already a member of the workspace" }))
            : sqlFailure(error)
        )
      )
    })

    const find = Effect.fn("MembershipRepository.find")(function*(workspaceId: WorkspaceId, userId: UserId) {
      return yield* findOne(sql`workspace_id = ${workspaceId} AND user_id = ${userId}`)
    })

    const findById = Effect.fn("MembershipRepository.findById")(function*(workspaceId: WorkspaceId, id: MembershipId) {
      return yield* findInWorkspace(workspaceId, id)
    })

    // The page is cut from memberships alone, so the cursor's `created_at` and `id` are never ambiguous with the
    // user's; the users are joined to that page only, their columns prefixed `user_`.
    const listByWorkspace = Effect.fn("MembershipRepository.listByWorkspace")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      const rows = yield* sql`
        SELECT m.*, u.email AS user_email, u.name AS user_name, u.created_at AS user_created_at, u.email_verified_at AS user_email_verified_at
        FROM (
          SELECT ${sql.literal(columns)} FROM memberships
          WHERE workspace_id = ${workspaceId} AND ${afterCursorAscending(sql, page)}
          ORDER BY created_at, id COLLATE "C"
          LIMIT ${fetchSize(page)}
        ) m
        JOIN users u ON u.id = m.user_id
        ORDER BY m.created_at, m.id COLLATE "C"
      `.pipe(orUnavailable)
      const [memberships, users] = yield* Effect.all([toMemberships(rows), decodeMemberUsers(rows)]).pipe(orUnavailable)
      const members = memberships.flatMap((membership, index): Array<Member> => {
        const user = users[index]
        return user === undefined ? [] : [{ membership, user: new User(user) }]
      })
      return toPageBy(members, page, (member) => member.membership)
    })

    const listByUser = Effect.fn("MembershipRepository.listByUser")(function*(userId: UserId) {
      return yield* sql`SELECT ${sql.literal(columns)} FROM memberships WHERE user_id = ${userId} ORDER BY created_at, id`.pipe(
        Effect.flatMap(toMemberships),
        orUnavailable
      )
    })

    // The organization view in one statement: memberships joined to their workspaces (by the user's index), the
    // workspace columns prefixed `workspace_`; oldest first, ties by id in code-unit order.
    const listWorkspacesOfUser = Effect.fn("MembershipRepository.listWorkspacesOfUser")(function*(userId: UserId) {
      const rows = yield* sql`
        SELECT m.id, m.workspace_id, m.user_id, m.role, m.created_at,
          w.name AS workspace_name, w.slug AS workspace_slug, w.personal AS workspace_personal, w.created_at AS workspace_created_at
        FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.user_id = ${userId}
        ORDER BY m.created_at, m.id COLLATE "C"
      `.pipe(orUnavailable)
      const [memberships, workspaces] = yield* Effect.all([toMemberships(rows), decodeMembershipWorkspaces(rows)]).pipe(orUnavailable)
      return memberships.flatMap((membership, index): Array<WorkspaceMembership> => {
        const workspace = workspaces[index]
        return workspace === undefined ? [] : [{ membership, workspace: new Workspace(workspace) }]
      })
    })

    // Only the role changes: the id, workspace, user and join time are fixed at insert.
    const update = Effect.fn("MembershipRepository.update")(function*(membership: Membership) {
      yield* sql`
        UPDATE memberships SET role = ${membership.role} WHERE workspace_id = ${membership.workspaceId} AND id = ${membership.id}
      `.pipe(orUnavailable)
    })

    const remove = Effect.fn("MembershipRepository.delete")(function*(workspaceId: WorkspaceId, id: MembershipId) {
      yield* sql`DELETE FROM memberships WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(orUnavailable)
    })

    // FOR UPDATE locks the owner rows until the transaction ends, in id order so two callers never deadlock. A caller
    // that waited re-reads each locked row as committed (READ COMMITTED): an owner demoted or removed meanwhile no
    // longer counts, so two owners demoting each other at once leave one.
    const countOwners = Effect.fn("MembershipRepository.countOwners")(function*(workspaceId: WorkspaceId) {
      const [row] = yield* sql`
        SELECT count(*)::int AS count FROM (
          SELECT id FROM memberships WHERE workspace_id = ${workspaceId} AND role = 'owner' ORDER BY id FOR UPDATE
        ) owners
      `.pipe(Effect.flatMap(decodeCount), orUnavailable)
      return row.count
    })

    return MembershipRepository.of({ insert, find, findById, listByWorkspace, listByUser, listWorkspacesOfUser, update, delete: remove, countOwners })
  })
)
