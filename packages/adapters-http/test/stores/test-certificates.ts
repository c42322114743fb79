import { generateKeyPairSync, type KeyObject, sign, X509Certificate } from "node:crypto"

// A minimal DER writer: enough X.509 to make a test CA with Apple's marker extensions (Node can read, not write, certificates).
const length = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n])
  const bytes: Array<number> = []
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}
const tlv = (tag: number, ...content: Array<Buffer>): Buffer => {
  const body = Buffer.concat(content)
  return Buffer.concat([Buffer.from([tag]), length(body.length), body])
}
const sequence = (...content: Array<Buffer>) => tlv(0x30, ...content)
const oid = (dotted: string): Buffer => {
  const [a = 0, b = 0, ...rest] = dotted.split(".").map(Number)
  const bytes = [40 * a + b]
  for (const part of rest) {
    const chunk: Array<number> = [part & 0x7f]
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80)
    bytes.push(...chunk)
  }
  return tlv(0x06, Buffer.from(bytes))
}
const integer = (n: number) => tlv(0x02, Buffer.from([n]))
const name = (cn: string) => sequence(tlv(0x31, sequence(oid("2.5.4.3"), tlv(0x0c, Buffer.from(cn, "utf8")))))
const time = (date: Date) => tlv(0x18, Buffer.from(date.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z", "ascii"))
const ecdsaSha256 = sequence(oid("1.2.840.10045.4.3.2"))
const extension = (id: string, critical: boolean, value: Buffer) =>
  sequence(oid(id), ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []), tlv(0x04, value))

/** A key pair and its certificate. */
export interface Issued {
  readonly cert: X509Certificate
  readonly der: Buffer
  readonly key: KeyObject
  readonly name: string
}

let serial = 1

/** Issues a P-256 certificate for `subject`, signed by `issuer` (self-signed without one), with the given extensions. */
export const issue = (options: {
  readonly subject: string
  readonly issuer?: Issued | undefined
  readonly ca?: boolean
  readonly markers?: ReadonlyArray<string>
  readonly notBefore?: Date
  readonly notAfter?: Date
}): Issued => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" })
  const spki = publicKey.export({ type: "spki", format: "der" })
  const extensions = [
    extension("2.5.29.19", true, sequence(...(options.ca === true ? [tlv(0x01, Buffer.from([0xff]))] : []))),
    ...(options.markers ?? []).map((marker) => extension(marker, false, Buffer.from([0x05, 0x00])))
  ]
  const tbs = sequence(
    tlv(0xa0, integer(2)),
    integer(serial++ % 120 + 1),
    ecdsaSha256,
    name(options.issuer?.name ?? options.subject),
    sequence(time(options.notBefore ?? new Date(Date.now() - 86_400_000)), time(options.notAfter ?? new Date(Date.now() + 365 * 86_400_000))),
    name(options.subject),
    spki,
    tlv(0xa3, sequence(...extensions))
  )
  const signature = sign("sha256", tbs, options.issuer?.key ?? privateKey)
  const der = sequence(tbs, ecdsaSha256, tlv(0x03, Buffer.from([0x00]), signature))
  return { cert: new X509Certificate(der), der, key: privateKey, name: options.subject }
}

/** Signs `payload` as an ES256 JWS with `x5c` = the given chain. */
export const signJws = (payload: unknown, chain: ReadonlyArray<Issued>, key: KeyObject): string => {
  const header = Buffer.from(JSON.stringify({ alg: "ES256", x5c: chain.map((c) => c.der.toString("base64")) })).toString("base64url")
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url")
  const signature = sign("sha256", Buffer.from(`${header}.${body}`), { key, dsaEncoding: "ieee-p1363" })
  return `${header}.${body}.${signature.toString("base64url")}`
}

/** A test Apple PKI: a root, an intermediate and a leaf with Apple's marker OIDs. */
export const testApplePki = () => {
  const root = issue({ subject: "Test Root CA", ca: true })
  const intermediate = issue({ subject: "Test WWDR CA", issuer: root, ca: true, markers: ["1.2.840.113635.100.6.2.1"] })
  const leaf = issue({ subject: "Test Store Signing", issuer: intermediate, markers: ["1.2.840.113635.100.6.11.1"] })
  return { root, intermediate, leaf, sign: (payload: unknown) => signJws(payload, [leaf, intermediate, root], leaf.key) }
}
