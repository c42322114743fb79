import { Context, DateTime, Effect, Layer, Option, Ref } from "effect"
import { MailMessage, Mailer, MailRepository, type MailSendFailure, type OutgoingMail } from "../mail/index.ts"
import { type MemoryState, useStore, withEntry } from "./memory-store.ts"

const millis = DateTime.toEpochMillis
const dueMillis = (m: MailMessage) => Option.match(m.nextAttemptAt, { onNone: () => Number.POSITIVE_INFINITY, onSome: millis })

/** The in-memory outbox: unique by dedupe key, leased claims, compare-and-set settlement. */
export const MailRepositoryMemory = Layer.effect(
  MailRepository,
  Effect.gen(function*() {
    const { read, modify } = yield* useStore
    const all = (s: MemoryState) => Array.from(s.mailMessages.values())
    return MailRepository.of({
      insert: (message) =>
        modify((s): readonly [boolean, MemoryState] =>
          all(s).some((m) => m.dedupeKey === message.dedupeKey)
            ? [false, s]
            : [true, { ...s, mailMessages: withEntry(s.mailMessages, message.id, message) }]
        ),
      claimDue: (now, limit, leaseUntil) =>
        modify((s): readonly [ReadonlyArray<MailMessage>, MemoryState] => {
          const due = all(s)
            .filter((m) => m.status === "pending" && Option.exists(m.nextAttemptAt, (at) => millis(at) <= millis(now)))
            .sort((a, b) => dueMillis(a) - dueMillis(b) || a.id.localeCompare(b.id))
            .slice(0, Math.max(0, Math.trunc(limit)))
          const next = new Map(s.mailMessages)
          for (const m of due) next.set(m.id, new MailMessage({ ...m, nextAttemptAt: Option.some(leaseUntil) }))
          return [due, { ...s, mailMessages: next }]
        }),
      settle: (previous, next) =>
        modify((s): readonly [boolean, MemoryState] => {
          const stored = s.mailMessages.get(previous.id)
          if (stored === undefined || stored.status !== "pending" || stored.attempts !== previous.attempts) return [false, s]
          return [true, { ...s, mailMessages: withEntry(s.mailMessages, next.id, next) }]
        }),
      findById: (id) => read.pipe(Effect.map((s) => Option.fromNullishOr(s.mailMessages.get(id)))),
      statusesOf: (keys) =>
        read.pipe(Effect.map((s) => new Map(all(s).filter((m) => keys.includes(m.dedupeKey)).map((m) => [m.dedupeKey, m.status] as const)))),
      listByRecipient: (to, limit) =>
        read.pipe(Effect.map((s) =>
          all(s)
            .filter((m) => m.to === to)
            .sort((a, b) => millis(b.createdAt) - millis(a.createdAt) || b.id.localeCompare(a.id))
            .slice(0, limit)
        )),
      listFailed: (limit) =>
        read.pipe(Effect.map((s) =>
          all(s)
            .filter((m) => m.status === "failed")
            .sort((a, b) => millis(b.updatedAt) - millis(a.updatedAt) || b.id.localeCompare(a.id))
            .slice(0, limit)
        ))
    })
  })
)

/** What the in-memory mailer did and will do: every message handed to it, and scripted failures to answer first. */
export class ScriptedMailbox extends Context.Service<ScriptedMailbox, {
  readonly sent: Ref.Ref<ReadonlyArray<OutgoingMail>>
  /** Answers for the next sends, in order; a send past the script succeeds. */
  readonly script: Ref.Ref<ReadonlyArray<MailSendFailure>>
}>()("@atrium/domain/testing/ScriptedMailbox") {}

/** An in-memory mailer that records what it is given (in `ScriptedMailbox.sent`) and fails as scripted. */
export const MailerMemory = Layer.effect(
  Mailer,
  Effect.gen(function*() {
    const mailbox = yield* ScriptedMailbox
    return Mailer.of({
      send: (mail) =>
        Ref.modify(mailbox.script, ([next, ...rest]) => [next, rest]).pipe(
          Effect.flatMap((failure) => failure === undefined ? Ref.update(mailbox.sent, (sent) => [...sent, mail]) : Effect.fail(failure))
        )
    })
  })
).pipe(Layer.provideMerge(Layer.effect(
  ScriptedMailbox,
  Effect.all({ sent: Ref.make<ReadonlyArray<OutgoingMail>>([]), script: Ref.make<ReadonlyArray<MailSendFailure>>([]) }).pipe(Effect.map(ScriptedMailbox.of))
)))
