import { Invitation, type InvitationId, InvitationRepository, type PageRequest, type WorkspaceId } from "@atrium/domain"
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { InvitationRow } from "./identity-rows.ts"
import { orUnavailable } from "../shared/sql-errors.ts"
import { dateOrNull } from "../shared/sql-values.ts"
import { tableReads } from "../shared/table-reads.ts"

const columns = "id, workspace_id, email, role, token_digest, invited_by, created_at, expires_at, accepted_at, accepted_by, revoked_at"

/** Postgres invitations: only the token's digest is stored, and accepting locks the row so a token is used once. */
export const InvitationRepositoryPg = Layer.effect(
  InvitationRepository,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const { findOne, findInWorkspace, newestInWorkspace } = tableReads(sql, { name: "invitations", columns, Row: InvitationRow, Class: Invitation })

    const insert = Effect.fn("InvitationRepository.insert")(function*(invitation: Invitation) {
      yield* sql`
        INSERT INTO invitations (${sql.literal(columns)})
        VALUES (
          ${invitation.id}, ${invitation.workspaceId}, ${invitation.email}, ${invitation.role}, ${invitation.tokenDigest},
          ${JSON.stringify(invitation.invitedBy)}::jsonb, ${DateTime.toDateUtc(invitation.createdAt)},
          ${DateTime.toDateUtc(invitation.expiresAt)}, ${dateOrNull(invitation.acceptedAt)},
          ${Option.getOrNull(invitation.acceptedBy)}, ${dateOrNull(invitation.revokedAt)}
        )
      `.pipe(orUnavailable)
    })

    const findById = Effect.fn("InvitationRepository.findById")(function*(workspaceId: WorkspaceId, id: InvitationId) {
      return yield* findInWorkspace(workspaceId, id)
    })

    // FOR UPDATE: inside the accepting transaction a second acceptance of the same token waits, then reads the first
    // one's result (accepted). Outside a transaction the lock ends with the statement.
    const findByTokenDigest = Effect.fn("InvitationRepository.findByTokenDigest")(function*(digest: string) {
      return yield* findOne(sql`token_digest = ${digest} FOR UPDATE`)
    })

    const listByWorkspace = Effect.fn("InvitationRepository.listByWorkspace")(function*(workspaceId: WorkspaceId, page: PageRequest) {
      return yield* newestInWorkspace(workspaceId, page)
    })

    // Every mutable field; the id, workspace, token digest, inviter and creation time never change.
    const update = Effect.fn("InvitationRepository.update")(function*(invitation: Invitation) {
      yield* sql`
        UPDATE invitations SET
          email = ${invitation.email},
          role = ${invitation.role},
          expires_at = ${DateTime.toDateUtc(invitation.expiresAt)},
          accepted_at = ${dateOrNull(invitation.acceptedAt)},
          accepted_by = ${Option.getOrNull(invitation.acceptedBy)},
          revoked_at = ${dateOrNull(invitation.revokedAt)}
        WHERE workspace_id = ${invitation.workspaceId} AND id = ${invitation.id}
      `.pipe(orUnavailable)
    })

    return InvitationRepository.of({ insert, findById, findByTokenDigest, listByWorkspace, update })
  })
)
