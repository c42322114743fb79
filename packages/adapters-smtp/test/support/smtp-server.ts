// A small SMTP server on node:net for tests: EHLO, STARTTLS, SMTPUTF8, AUTH PLAIN/LOGIN, MAIL/RCPT/DATA, scripted refusals and stalls.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as tls from "node:tls"

/** A message the server accepted, with its body decoded. */
export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly data: string
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly html: string
}

/** Where a scripted reply replaces the normal one. */
export type SmtpStep = "greeting" | "EHLO" | "AUTH" | "MAIL" | "RCPT" | "DATA" | "END"

export interface FakeSmtpOptions {
  /** Offer STARTTLS with this key and certificate. */
  readonly tls?: { readonly key: string; readonly cert: string } | undefined
  /** Require this login (AUTH PLAIN and LOGIN offered). */
  readonly auth?: { readonly user: string; readonly password: string } | undefined
  /** Offer only these AUTH mechanisms (default PLAIN LOGIN). */
  readonly mechanisms?: ReadonlyArray<string> | undefined
  /** Offer SMTPUTF8; without it a non-ASCII address is refused as Postfix does (553 5.6.7). */
  readonly smtpUtf8?: boolean | undefined
}

export interface FakeSmtpServer {
  readonly port: number
  readonly received: Array<ReceivedMail>
  /** Every line clients sent before TLS, for checking what crossed in the clear. */
  readonly plaintextLines: Array<string>
  /** Every `MAIL FROM` line, with its parameters. */
  readonly mailCommands: Array<string>
  /** The TLS server name (SNI) of each STARTTLS handshake; null when the client sent none. */
  readonly serverNames: Array<string | null>
  /** Replies to use instead of the normal one, once each, in order per step; "stall" never answers. */
  readonly script: Array<{ readonly step: SmtpStep; readonly reply: string | "stall" }>
  /** Resolves once `check` holds, checked again after each line the server handled. */
  readonly until: (check: () => boolean) => Promise<void>
  readonly close: () => Promise<void>
}

const decodeBody = (data: string) => {
  const [head = "", ...rest] = data.split("\r\n\r\n")
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const at = line.indexOf(":")
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim()
  }
  const body = rest.join("\r\n\r\n")
  const boundary = /boundary="([^"]+)"/.exec(headers["content-type"] ?? "")?.[1] ?? ""
  const parts = body.split(`--${boundary}`).slice(1, -1)
  const partOf = (type: string) => {
    const part = parts.find((p) => p.includes(`Content-Type: ${type}`)) ?? ""
    const [head = "", ...bodyParts] = part.split("\r\n\r\n")
    // The CRLF before the next boundary belongs to the boundary (RFC 2046).
    const body = bodyParts.join("\r\n\r\n").replace(/\r\n$/, "")
    const encoding = /Content-Transfer-Encoding: *(\S+)/i.exec(head)?.[1]?.toLowerCase()
    if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
    if (encoding === "quoted-printable") {
      const soft = body.replace(/=\r\n/g, "")
      const bytes: Array<number> = []
      for (let i = 0; i < soft.length; i++) {
        const hex = soft[i] === "=" ? /^[0-9A-F]{2}$/i.exec(soft.slice(i + 1, i + 3))?.[0] : undefined
        if (hex === undefined) bytes.push(...Buffer.from(soft[i] ?? "", "utf8"))
        else {
          bytes.push(parseInt(hex, 16))
          i += 2
        }
      }
      return Buffer.from(bytes).toString("utf8")
    }
    return body
  }
  return { headers, text: partOf("text/plain"), html: partOf("text/html") }
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export const startSmtpServer = (options: FakeSmtpOptions = {}): Promise<FakeSmtpServer> => {
  const received: Array<ReceivedMail> = []
  const plaintextLines: Array<string> = []
  const mailCommands: Array<string> = []
  const serverNames: Array<string | null> = []
  const script: FakeSmtpServer["script"] = []
  const sockets = new Set<net.Socket>()
  let waiting: Array<{ readonly check: () => boolean; readonly resolve: () => void }> = []
  const until = (check: () => boolean) => check() ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ check, resolve }))
  const handled = () => {
    waiting = waiting.filter((waiter) => {
      const done = waiter.check()
      if (done) waiter.resolve()
      return !done
    })
  }

  const scripted = (step: SmtpStep): string | "stall" | undefined => {
    const index = script.findIndex((entry) => entry.step === step)
    if (index === -1) return undefined
    const [entry] = script.splice(index, 1)
    return entry?.reply
  }

  const session = (raw: net.Socket) => {
    let socket: net.Socket = raw
    let secure = false
    let authed = options.auth === undefined
    let buffer = ""
    let inData = false
    let dataLines: Array<string> = []
    let from = ""
    let utf8 = false
    let to: Array<string> = []
    let loginStep: "user" | "password" | undefined
    let loginUser = ""

    const reply = (step: SmtpStep, normal: string) => {
      const answer = scripted(step) ?? normal
      if (answer !== "stall") socket.write(`${answer}\r\n`)
    }
    const ehlo = () => {
      const lines = ["250-fake.test greets you", "250-8BITMIME"]
      if (options.smtpUtf8 === true) lines.push("250-SMTPUTF8")
      if (options.tls !== undefined && !secure) lines.push("250-STARTTLS")
      if (options.auth !== undefined && (secure || options.tls === undefined)) lines.push(`250-AUTH ${(options.mechanisms ?? ["PLAIN", "LOGIN"]).join(" ")}`)
      lines.push("250 SIZE 10485760")
      const override = scripted("EHLO")
      if (override === "stall") return
      socket.write(override === undefined ? `${lines.join("\r\n")}\r\n` : `${override}\r\n`)
    }
    const checkLogin = (user: string, password: string) => {
      if (options.auth !== undefined && user === options.auth.user && password === options.auth.password) {
        authed = true
        reply("AUTH", "235 2.7.0 Authentication successful")
      } else {
        reply("AUTH", "535 5.7.8 Authentication credentials invalid")
      }
    }

    const onLine = (line: string) => {
      if (!secure) plaintextLines.push(line)
      if (inData) {
        if (line === ".") {
          inData = false
          const data = dataLines.map((l) => (l.startsWith("..") ? l.slice(1) : l)).join("\r\n")
          const answer = scripted("END")
          if (answer === "stall") return
          if (answer === undefined || answer.startsWith("2")) received.push({ from, to, data, ...decodeBody(data) })
          socket.write(`${answer ?? "250 2.0.0 queued"}\r\n`)
          dataLines = []
          return
        }
        dataLines.push(line)
        return
      }
      if (loginStep !== undefined) {
        const value = Buffer.from(line, "base64").toString("utf8")
        if (loginStep === "user") {
          loginUser = value
          loginStep = "password"
          socket.write("334 UGFzc3dvcmQ6\r\n")
        } else {
          loginStep = undefined
          checkLogin(loginUser, value)
        }
        return
      }
      const verb = line.split(" ")[0]?.toUpperCase() ?? ""
      if (verb === "EHLO" || verb === "HELO") return ehlo()
      if (verb === "STARTTLS" && options.tls !== undefined && !secure) {
        socket.write("220 2.0.0 ready to start TLS\r\n")
        socket.removeAllListeners("data")
        const upgraded = new tls.TLSSocket(socket, { isServer: true, key: options.tls.key, cert: options.tls.cert })
        upgraded.on("error", () => upgraded.destroy())
        upgraded.once("secure", () => serverNames.push(upgraded.servername === false ? null : upgraded.servername ?? null))
        socket = upgraded
        secure = true
        buffer = ""
        upgraded.on("data", onData)
        return
      }
      if (verb === "AUTH") {
        const [, mechanism, initial] = line.split(" ")
        if (mechanism?.toUpperCase() === "PLAIN" && initial !== undefined) {
          const [, user = "", password = ""] = Buffer.from(initial, "base64").toString("utf8").split("\u0000")
          return checkLogin(user, password)
        }
        if (mechanism?.toUpperCase() === "LOGIN") {
          loginStep = "user"
          return socket.write("334 VXNlcm5hbWU6\r\n")
        }
        return socket.write("504 5.5.4 mechanism not supported\r\n")
      }
      if (verb === "MAIL") {
        if (!authed) return socket.write("530 5.7.0 Authentication required\r\n")
        mailCommands.push(line)
        from = /<([^>]*)>/.exec(line)?.[1] ?? ""
        to = []
        utf8 = options.smtpUtf8 === true && / SMTPUTF8\b/i.test(line)
        if (/[^\x00-\x7f]/.test(from) && !utf8) return socket.write("553 5.6.7 Must declare SMTPUTF8 to send unicode address\r\n")
        return reply("MAIL", "250 2.1.0 ok")
      }
      if (verb === "RCPT") {
        if (/[^\x00-\x7f]/.test(line) && !utf8) return socket.write("553 5.6.7 Must declare SMTPUTF8 to send unicode address\r\n")
        const answer = scripted("RCPT")
        if (answer === "stall") return
        if (answer === undefined) to.push(/<([^>]*)>/.exec(line)?.[1] ?? "")
        return socket.write(`${answer ?? "250 2.1.5 ok"}\r\n`)
      }
      if (verb === "DATA") {
        const answer = scripted("DATA")
        if (answer === "stall") return
        if (answer === undefined) inData = true
        return socket.write(`${answer ?? "354 end with <CRLF>.<CRLF>"}\r\n`)
      }
      if (verb === "QUIT") {
        socket.write("221 2.0.0 bye\r\n")
        return socket.end()
      }
      if (verb === "RSET" || verb === "NOOP") return socket.write("250 2.0.0 ok\r\n")
      socket.write("502 5.5.2 command not recognised\r\n")
    }

    function onData(chunk: Buffer) {
      buffer += chunk.toString("utf8")
      let end = buffer.indexOf("\r\n")
      while (end !== -1) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const wasSecure = secure
        onLine(line)
        handled()
        // After STARTTLS the rest of the buffer belongs to the TLS layer, which re-reads from the socket.
        if (!wasSecure && secure) return
        end = buffer.indexOf("\r\n")
      }
    }

    raw.on("data", onData)
    raw.on("error", () => raw.destroy())
    reply("greeting", "220 fake.test ESMTP ready")
  }

  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    session(socket)
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        port,
        received,
        plaintextLines,
        mailCommands,
        serverNames,
        script,
        until,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
}

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl for this run only. */
export const makeTestCertificate = (): { readonly key: string; readonly cert: string } => {
  const dir = mkdtempSync(join(tmpdir(), "atrium-smtp-cert-"))
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")
    ], { stdio: "ignore" })
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}
