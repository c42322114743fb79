import type { MailSendFailure } from "@atrium/domain"
import { Cause, Duration, Effect, Queue, type Scope } from "effect"
import * as net from "node:net"
import * as tls from "node:tls"
import { makeReplyParser, type SmtpReply, temporary } from "./smtp-reply.ts"

/** Where and how to connect. */
export interface ConnectOptions {
  readonly host: string
  readonly port: number
  /** Implicit TLS from the first byte (`smtps://`, port 465); otherwise plain, upgraded by STARTTLS. */
  readonly implicitTls: boolean
  /** Extra TLS options (a private CA in tests); certificates are always verified against the host name. */
  readonly tls: tls.ConnectionOptions
  readonly connectTimeout: Duration.Duration
}

/** An open SMTP connection: replies in order, writes, and the STARTTLS upgrade. */
export interface SmtpConnection {
  /** The next complete reply, failing as temporary when none arrives within `timeout` or the connection drops. */
  readonly read: (timeout: Duration.Duration) => Effect.Effect<SmtpReply, MailSendFailure>
  readonly write: (text: string) => Effect.Effect<void, MailSendFailure>
  /** Runs the TLS handshake over the current socket (after `220` to `STARTTLS`). */
  readonly upgrade: Effect.Effect<void, MailSendFailure, Scope.Scope>
  /** Whether the connection is encrypted now. */
  readonly encrypted: () => boolean
}

// An error's code only (ECONNREFUSED, CERT_HAS_EXPIRED…): messages can carry anything, codes carry no secrets.
const codeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : "error"

const waitFor = <S extends net.Socket>(make: () => S, readyEvent: "connect" | "secureConnect", what: string) =>
  Effect.callback<S, MailSendFailure>((resume) => {
    const socket = make()
    const onError = (error: unknown) => {
      socket.destroy()
      resume(Effect.fail(temporary(`${what} failed (${codeOf(error)})`)))
    }
    socket.once("error", onError)
    socket.once(readyEvent, () => {
      socket.off("error", onError)
      resume(Effect.succeed(socket))
    })
    return Effect.sync(() => socket.destroy())
  })

/** Connects (closing the socket with the scope) and reads replies into a queue; lines are parsed as they arrive. */
export const connect = (options: ConnectOptions): Effect.Effect<SmtpConnection, MailSendFailure, Scope.Scope> =>
  Effect.gen(function*() {
    const replies = yield* Queue.unbounded<SmtpReply, MailSendFailure>()
    const open = options.implicitTls
      ? waitFor(() => tls.connect({ ...options.tls, host: options.host, port: options.port, servername: options.tls.servername ?? options.host }), "secureConnect", "TLS connection")
      : waitFor(() => net.connect({ host: options.host, port: options.port }), "connect", "connection")
    let socket: net.Socket = yield* Effect.acquireRelease(
      open.pipe(Effect.timeoutOrElse({ duration: options.connectTimeout, orElse: () => Effect.fail(temporary("connection timed out")) })),
      (s) => Effect.sync(() => s.destroy())
    )
    let encrypted = options.implicitTls

    const attach = (s: net.Socket) => {
      const parse = makeReplyParser()
      let buffer = ""
      const fail = (detail: string) => Queue.failCauseUnsafe(replies, Cause.fail(temporary(detail)))
      const onData = (chunk: Buffer) => {
        buffer += chunk.toString("utf8")
        // Replies are bounded; a server that never ends a line is cut off rather than buffered forever.
        if (buffer.length > 64 * 1024) return fail("reply too long")
        let end = buffer.indexOf("\n")
        while (end !== -1) {
          const line = buffer.slice(0, end).replace(/\r$/, "")
          buffer = buffer.slice(end + 1)
          const reply = parse(line)
          if (reply === "malformed") return fail("malformed reply from the server")
          if (reply !== undefined) Queue.offerUnsafe(replies, reply)
          end = buffer.indexOf("\n")
        }
      }
      const onError = (error: unknown) => fail(`connection error (${codeOf(error)})`)
      const onClose = () => fail("the server closed the connection")
      s.on("data", onData)
      s.on("error", onError)
      s.on("close", onClose)
      return () => {
        s.off("data", onData)
        s.off("error", onError)
        s.off("close", onClose)
      }
    }
    let detach = attach(socket)

    const read = (timeout: Duration.Duration) =>
      Queue.take(replies).pipe(
        Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(temporary(`timed out after ${Duration.format(timeout)} waiting for the server`)) })
      )

    const write = (text: string) =>
      Effect.callback<void, MailSendFailure>((resume) => {
        socket.write(text, "utf8", (error) => resume(error === null || error === undefined ? Effect.void : Effect.fail(temporary(`write failed (${codeOf(error)})`))))
      })

    const upgrade = Effect.gen(function*() {
      detach()
      const plain = socket
      const secure = yield* Effect.acquireRelease(
        waitFor(
          () => tls.connect({ ...options.tls, socket: plain, servername: options.tls.servername ?? options.host }),
          "secureConnect",
          "TLS handshake"
        ).pipe(Effect.timeoutOrElse({ duration: options.connectTimeout, orElse: () => Effect.fail(temporary("TLS handshake timed out")) })),
        (s) => Effect.sync(() => s.destroy())
      )
      socket = secure
      encrypted = true
      detach = attach(secure)
    })

    return { read, write, upgrade, encrypted: () => encrypted }
  })
