import {
  Accounts,
  AuditLog,
  type AuditEntry,
  EmailVerification,
  MailRepository,
  PasswordReset,
  SecretBox,
  Unavailable,
  type UserId,
  type WorkspaceId
} from "@atrium/domain"
import { Domain } from "@atrium/domain/testing"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import type { Ports } from "../src/index.ts"
import { token } from "./fixtures.ts"
import { StorageProbe } from "./storage-probe.ts"

const password = Redacted.make("correct horse battery")
// The domain over the ports under test; a fast password hasher stands in for Argon2id.
const domain = Domain.layerOver(Layer.empty)

// The workspace's entries about the account.
const accountEntries = (workspaceId: WorkspaceId, userId: UserId) =>
  Effect.gen(function*() {
    const page = yield* (yield* AuditLog).list(workspaceId, { limit: 100, cursor: undefined })
    return page.data.filter((entry) => entry.target === userId)
  })
// Each entry as "action by actor", sorted: steps may share a millisecond, and the log orders those by random id.
const shape = (entries: ReadonlyArray<AuditEntry>) => entries.map((entry) => `${entry.action} by ${entry.actor.type}:${entry.actor.id}`).sort()

// One pass of the reset-request worker.
const handleResetRequests = Effect.gen(function*() {
  const reset = yield* PasswordReset
  yield* Effect.forEach(yield* reset.requestQueue.claim(100), reset.handle)
})

// The newest link mailed to `to` for `template`, opened as the recipient's mail client would see it.
const mailedToken = (to: string, template: "email_verification" | "password_reset") =>
  Effect.gen(function*() {
    yield* handleResetRequests
    const messages = yield* (yield* MailRepository).listByRecipient(to, 20)
    const sealed = messages.find((m) => m.content.template === template)?.sealedToken ?? Option.none()
    if (Option.isNone(sealed)) return yield* Effect.die(`no ${template} message to ${to}`)
    return yield* (yield* SecretBox).open(sealed.value)
  })

const messageCount = (to: string) => Effect.map(Effect.flatMap(MailRepository, (repo) => repo.listByRecipient(to, 100)), (all) => all.length)

/** Verification and reset links, and their use, leave audit entries in the account's home workspace, in their transaction. */
export const accountMailAuditContract = <E>(label: string, target: Layer.Layer<Ports | StorageProbe, E>) =>
  layer(target, { timeout: "60 seconds", excludeTestServices: true })(`account mail audit on ${label}`, (it) => {
    it.effect("asking for and using verification and reset links is audited in the personal workspace, with no token text", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        const verification = yield* EmailVerification
        const reset = yield* PasswordReset
        const email = `${token()}@example.com`
        const { user, workspace } = yield* accounts.signUp({ email, password, name: `Person ${token()}` })
        const self = `user:${user.id}`
        assert.deepStrictEqual(shape(yield* accountEntries(workspace.id, user.id)), [`email_verification.requested by ${self}`])

        yield* verification.resend(user.id)
        const verifyToken = yield* mailedToken(email, "email_verification")
        yield* verification.verify(verifyToken)
        yield* reset.request(email.toUpperCase())
        const resetToken = yield* mailedToken(email, "password_reset")
        yield* reset.confirm(resetToken, Redacted.make("a brand new passphrase"))

        const entries = yield* accountEntries(workspace.id, user.id)
        assert.deepStrictEqual(shape(entries), [
          `email_verification.completed by ${self}`,
          `email_verification.requested by ${self}`,
          `email_verification.requested by ${self}`,
          `password_reset.completed by ${self}`,
          "password_reset.requested by system:anonymous"
        ])
        // Nothing that opens a link is in the entries, nor anywhere in the audit and event tables.
        const stored = yield* (yield* StorageProbe).dump
        for (const secret of [verifyToken, resetToken].map(Redacted.value)) {
          assert.notInclude(JSON.stringify(entries), secret)
          assert.notInclude(stored, secret)
        }
      }).pipe(Effect.provide(domain)))

    it.effect("a reset asked for an unknown address records nothing and answers as for a known one", () =>
      Effect.gen(function*() {
        const probe = yield* StorageProbe
        const before = yield* probe.count("audit_entries")
        const email = `${token()}@example.com`
        const answer = yield* (yield* PasswordReset).request(email)
        assert.isUndefined(answer)
        yield* handleResetRequests
        assert.strictEqual(yield* probe.count("audit_entries"), before)
        assert.strictEqual(yield* messageCount(email), 0)
      }).pipe(Effect.provide(domain)))

    it.effect("when the audit entry cannot be written, no token and no message are left behind", () => {
      // The ports under test, except that appending to the audit log fails like a lost connection.
      const failingAudit = Layer.effect(
        AuditLog,
        Effect.map(AuditLog, (real) => AuditLog.of({ ...real, append: () => Effect.fail(new Unavailable({ dependency: "database" })) }))
      )
      const broken = Domain.layerOver(Layer.empty, { replace: failingAudit })
      return Effect.gen(function*() {
        const email = `${token()}@example.com`
        const { user } = yield* Effect.flatMap(Accounts, (accounts) => accounts.signUp({ email, password, name: `Person ${token()}` })).pipe(Effect.provide(domain))
        const probe = yield* StorageProbe
        const messages = yield* messageCount(email)
        const tokens = yield* probe.count("account_tokens")
        const resent = yield* Effect.flatMap(EmailVerification, (verification) => verification.resend(user.id)).pipe(Effect.flip, Effect.provide(broken))
        assert.strictEqual(resent._tag, "Unavailable")
        // The request is recorded; handling it fails whole, and leaves the request for another try.
        yield* Effect.flatMap(PasswordReset, (reset) => reset.request(email)).pipe(Effect.provide(broken))
        const handled = yield* handleResetRequests.pipe(Effect.flip, Effect.provide(broken))
        assert.strictEqual(handled._tag, "Unavailable")
        assert.isAbove(yield* probe.count("password_reset_requests"), 0)
        assert.strictEqual(yield* messageCount(email), messages)
        assert.strictEqual(yield* probe.count("account_tokens"), tokens)
      })
    })
  })
