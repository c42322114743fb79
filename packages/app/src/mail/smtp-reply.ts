import { MailSendFailure } from "@atrium/domain"

/** One SMTP reply: its three-digit code and its text lines (continuations included). */
export interface SmtpReply {
  readonly code: number
  readonly lines: ReadonlyArray<string>
}

const replyLine = /^(\d{3})([ -])(.*)$/

/** Accumulates reply lines; `push` answers the complete reply a final line (`250 …`, not `250-…`) ends, if any. */
export const makeReplyParser = () => {
  let pending: Array<string> = []
  return (line: string): SmtpReply | "malformed" | undefined => {
    const match = replyLine.exec(line)
    if (match === null) return "malformed"
    pending.push(match[3] ?? "")
    if (match[2] === "-") return undefined
    const reply = { code: Number(match[1]), lines: pending }
    pending = []
    return reply
  }
}

/** A temporary failure (retried): a 4xx reply, a timeout, a dropped connection. */
export const temporary = (detail: string) => new MailSendFailure({ kind: "temporary", detail })

/** A permanent failure (recorded, never retried): a 5xx reply. */
export const permanent = (detail: string) => new MailSendFailure({ kind: "permanent", detail })

/**
 * The failure a reply outside `expected` means at step `step`: 5xx is permanent, anything else (4xx, or a code the
 * step does not expect) temporary. `scrub` removes anything secret the server might have echoed.
 */
export const refusal = (step: string, reply: SmtpReply, scrub: (text: string) => string): MailSendFailure => {
  const detail = scrub(`${step}: ${reply.code} ${reply.lines.join(" ")}`).slice(0, 300)
  return reply.code >= 500 && reply.code < 600 ? permanent(detail) : temporary(detail)
}
