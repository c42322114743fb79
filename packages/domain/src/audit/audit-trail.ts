import { Context, Effect, Layer } from "effect"
import type { AuditEntry } from "./audit-entry.ts"
import { permits } from "../access/index.ts"
import type { Forbidden } from "../access/index.ts"
import type { Unavailable } from "../shared/index.ts"
import type { Page, PageRequest } from "../shared/index.ts"
import { AuditLog } from "./audit-log.ts"
import { type Acting, memberOf } from "../access/index.ts"

/** The audit log of the principal's workspace, newest first, for admins and owners. */
export class AuditTrail extends Context.Service<AuditTrail, {
  readonly list: (principal: Acting, page: PageRequest) => Effect.Effect<Page<AuditEntry>, Forbidden | Unavailable>
}>()("@atrium/domain/AuditTrail") {
  static readonly layer = Layer.effect(
    AuditTrail,
    Effect.gen(function*() {
      const log = yield* AuditLog
      const list = Effect.fn("AuditTrail.list")(function*(acting: Acting, page: PageRequest) {
        const principal = yield* memberOf(acting)
        yield* permits(principal, "audit.read")
        return yield* log.list(principal.workspaceId, page)
      })
      return AuditTrail.of({ list })
    })
  )
}
