import { createSocket } from "node:dgram"
import { Effect } from "effect"

/** What a name answers: records (TXT values as their strings), or a failure the resolver must report. */
export type DnsAnswer =
  | { readonly _tag: "Records"; readonly txt?: ReadonlyArray<ReadonlyArray<string>>; readonly cname?: string }
  | { readonly _tag: "ServFail" }
  | { readonly _tag: "Silent" }

/** A DNS server on loopback UDP: scripted answers per name (case-insensitive), every question it was asked. */
export interface DnsResponder {
  readonly server: string
  readonly set: (name: string, answer: DnsAnswer) => void
  readonly questions: ReadonlyArray<{ readonly name: string; readonly type: number }>
}

const TXT = 16
const CNAME = 5

// The question's name as asked (labels until the zero byte) and where the question ends.
const readQuestion = (message: Buffer): { readonly name: string; readonly type: number; readonly end: number } | undefined => {
  let offset = 12
  const labels: Array<string> = []
  while (offset < message.length) {
    const length = message[offset] ?? 0
    offset++
    if (length === 0) break
    labels.push(message.subarray(offset, offset + length).toString("latin1"))
    offset += length
  }
  if (offset + 4 > message.length) return undefined
  return { name: labels.join("."), type: message.readUInt16BE(offset), end: offset + 4 }
}

const encodeName = (name: string) =>
  Buffer.concat([...name.replace(/\.$/, "").split(".").map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "latin1")])), Buffer.from([0])])

const record = (type: number, data: Buffer) => {
  const head = Buffer.alloc(12)
  head.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's
  head.writeUInt16BE(type, 2)
  head.writeUInt16BE(1, 4) // IN
  head.writeUInt32BE(60, 6)
  head.writeUInt16BE(data.length, 10)
  return Buffer.concat([head, data])
}

const txtData = (strings: ReadonlyArray<string>) =>
  Buffer.concat(strings.map((s) => {
    const bytes = Buffer.from(s, "utf8")
    return Buffer.concat([Buffer.from([bytes.length]), bytes])
  }))

const reply = (query: Buffer, questionEnd: number, rcode: number, answers: ReadonlyArray<Buffer>) => {
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2)
  const rd = (query[2] ?? 0) & 0x01
  header[2] = 0x84 | rd // QR, AA, RD as asked
  header[3] = 0x80 | rcode // RA
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(answers.length, 6)
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers])
}

/** Starts a responder on an ephemeral loopback port for the scope's lifetime. */
export const dnsResponder = Effect.acquireRelease(
  Effect.callback<{ readonly socket: ReturnType<typeof createSocket>; readonly responder: DnsResponder }>((resume) => {
    const zone = new Map<string, DnsAnswer>()
    const questions: Array<{ readonly name: string; readonly type: number }> = []
    const socket = createSocket("udp4")
    socket.on("message", (message, remote) => {
      const question = readQuestion(message)
      if (question === undefined) return
      questions.push({ name: question.name, type: question.type })
      const answer = zone.get(question.name.toLowerCase())
      if (answer?._tag === "Silent") return
      const send = (rcode: number, answers: ReadonlyArray<Buffer>) =>
        socket.send(reply(message, question.end, rcode, answers), remote.port, remote.address)
      if (answer === undefined) return send(3, []) // NXDOMAIN
      if (answer._tag === "ServFail") return send(2, [])
      if (question.type === TXT) return send(0, (answer.txt ?? []).map((strings) => record(TXT, txtData(strings))))
      if (question.type === CNAME && answer.cname !== undefined) return send(0, [record(CNAME, encodeName(answer.cname))])
      return send(0, []) // NODATA
    })
    socket.bind(0, "127.0.0.1", () => {
      const { port } = socket.address()
      resume(Effect.succeed({
        socket,
        responder: {
          server: `127.0.0.1:${port}`,
          set: (name, answer) => zone.set(name.toLowerCase().replace(/\.$/, ""), answer),
          questions
        }
      }))
    })
  }),
  ({ socket }) => Effect.sync(() => socket.close())
).pipe(Effect.map(({ responder }) => responder))
