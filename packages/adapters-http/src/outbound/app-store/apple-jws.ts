import { InvalidSignature } from "@atrium/domain"
import { verify, X509Certificate } from "node:crypto"
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { appleRootCaG3 } from "./apple-root-ca-g3.ts"

// ---- reading a certificate's extension OIDs (X509Certificate does not list them) ----

/** One DER element: its tag and the bytes of its value. */
interface Element {
  readonly tag: number
  readonly value: Uint8Array
}

// Reads the elements laid end to end in `bytes`; undefined when the encoding is broken.
const elements = (bytes: Uint8Array): ReadonlyArray<Element> | undefined => {
  const out: Array<Element> = []
  let offset = 0
  while (offset < bytes.length) {
    const tag = bytes[offset]
    let length = bytes[offset + 1]
    if (tag === undefined || length === undefined) return undefined
    offset += 2
    if (length & 0x80) {
      const count = length & 0x7f
      if (count === 0 || count > 4) return undefined
      length = 0
      for (let i = 0; i < count; i++) {
        const next = bytes[offset + i]
        if (next === undefined) return undefined
        length = length * 256 + next
      }
      offset += count
    }
    if (offset + length > bytes.length) return undefined
    out.push({ tag, value: bytes.subarray(offset, offset + length) })
    offset += length
  }
  return out
}

/** The dotted form of a DER object identifier's value. */
const oidOf = (value: Uint8Array): string => {
  const parts: Array<number> = []
  let current = 0
  for (const byte of value) {
    current = current * 128 + (byte & 0x7f)
    if ((byte & 0x80) === 0) {
      parts.push(current)
      current = 0
    }
  }
  const [first = 0, ...rest] = parts
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80]
  return [...head, ...rest].join(".")
}

/** The OIDs of a DER X.509 certificate's extensions (empty when it has none or cannot be read). */
const extensionOids = (certificate: Uint8Array): ReadonlyArray<string> => {
  const [cert] = elements(certificate) ?? []
  if (cert?.tag !== 0x30) return []
  const [tbs] = elements(cert.value) ?? []
  if (tbs?.tag !== 0x30) return []
  const extensions = (elements(tbs.value) ?? []).find((element) => element.tag === 0xa3)
  if (extensions === undefined) return []
  const [list] = elements(extensions.value) ?? []
  if (list?.tag !== 0x30) return []
  return (elements(list.value) ?? []).flatMap((extension) => {
    const [oid] = elements(extension.value) ?? []
    return oid?.tag === 0x06 ? [oidOf(oid.value)] : []
  })
}

// ---- the JWS ----

/** Apple's marker on the certificate that signs App Store data (the leaf). */
export const appleLeafOid = "1.2.840.113635.100.6.11.1"
/** Apple's marker on the Worldwide Developer Relations intermediate. */
export const appleIntermediateOid = "1.2.840.113635.100.6.2.1"

/** A verified JWS payload, or why it was refused. */
export type AppleJwsResult = { readonly ok: true; readonly payload: unknown } | { readonly ok: false; readonly reason: string }

const refuse = (reason: string): AppleJwsResult => ({ ok: false, reason })

const json = (part: string): unknown => {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"))
  } catch {
    return undefined
  }
}

const certificate = (der: unknown): X509Certificate | undefined => {
  if (typeof der !== "string") return undefined
  try {
    return new X509Certificate(Buffer.from(der, "base64"))
  } catch {
    return undefined
  }
}

const validAt = (cert: X509Certificate, at: Date) => new Date(cert.validFrom) <= at && at <= new Date(cert.validTo)

/**
 * Verifies an App Store JWS (notification, transaction or renewal info): ES256 only, an `x5c` chain of exactly three
 * certificates — leaf, intermediate, and a root byte-identical to one of `roots` — each signed by the next and valid
 * at `at`, the intermediate a CA, Apple's marker OIDs on leaf and intermediate, and the signature by the leaf's key.
 * Stays on `node:crypto` `X509Certificate` (`jose` verifies no x5c chain). Not checked: revocation (no OCSP or CRL is
 * asked, unlike Apple's own library online), key usage and path-length or name constraints beyond the CA flag.
 */
export const verifyAppleJws = (jws: string, roots: ReadonlyArray<X509Certificate>, at: Date): AppleJwsResult => {
  if (roots.length === 0) return refuse("no Apple root certificate configured")
  const parts = jws.split(".")
  const [headerPart, payloadPart, signaturePart] = parts
  if (parts.length !== 3 || headerPart === undefined || payloadPart === undefined || signaturePart === undefined) return refuse("not a compact JWS")
  const header = json(headerPart)
  if (typeof header !== "object" || header === null || !("alg" in header) || header.alg !== "ES256") return refuse("algorithm")
  if (!("x5c" in header) || !Array.isArray(header.x5c) || header.x5c.length !== 3) return refuse("certificate chain length")
  const [leaf, intermediate, root] = header.x5c.map(certificate)
  if (leaf === undefined || intermediate === undefined || root === undefined) return refuse("unreadable certificate")
  if (!roots.some((trusted) => trusted.raw.equals(root.raw))) return refuse("untrusted root")
  if (!intermediate.checkIssued(root) || !intermediate.verify(root.publicKey)) return refuse("intermediate not issued by the root")
  if (!leaf.checkIssued(intermediate) || !leaf.verify(intermediate.publicKey)) return refuse("leaf not issued by the intermediate")
  if (!intermediate.ca || leaf.ca) return refuse("certificate roles")
  if (![leaf, intermediate, root].every((cert) => validAt(cert, at))) return refuse("certificate not valid at this time")
  if (!extensionOids(leaf.raw).includes(appleLeafOid)) return refuse("leaf marker")
  if (!extensionOids(intermediate.raw).includes(appleIntermediateOid)) return refuse("intermediate marker")
  if (leaf.publicKey.asymmetricKeyDetails?.namedCurve !== "prime256v1") return refuse("leaf key is not P-256")
  const input = Buffer.from(`${headerPart}.${payloadPart}`)
  const signed = verify("sha256", input, { key: leaf.publicKey, dsaEncoding: "ieee-p1363" }, Buffer.from(signaturePart, "base64url"))
  if (!signed) return refuse("signature")
  const payload = json(payloadPart)
  return payload === undefined ? refuse("payload") : { ok: true, payload }
}

/** Reads the PEM certificates in `text` (one or more). */
export const readCertificates = (text: string): ReadonlyArray<X509Certificate> =>
  (text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => new X509Certificate(pem))

/** The App Store's signatures: a JWS (notification, transaction, renewal info) verified up to a trusted Apple root at `at`. */
export class AppleSignatures extends Context.Service<AppleSignatures, {
  /** The verified JWS payload (JSON), or why not; the caller checks bundle id and environment. */
  readonly verify: (jws: string, at: DateTime.Utc) => Effect.Effect<unknown, InvalidSignature>
}>()("@atrium/adapters-http/AppleSignatures") {
  /** On node:crypto, trusting the configured PEM roots, else the shipped Apple Root CA - G3. */
  static readonly layer = (rootCertificates: Option.Option<string>): Layer.Layer<AppleSignatures> =>
    Layer.effect(
      AppleSignatures,
      Effect.try(() => readCertificates(Option.getOrElse(rootCertificates, () => appleRootCaG3))).pipe(
        Effect.catch(() => Effect.die(new Error("ATRIUM_APPLE_ROOT_CERTIFICATES is not a PEM certificate"))),
        Effect.map((roots) =>
          AppleSignatures.of({
            // Checked: ES256, a three-certificate x5c chain to a trusted root, each valid at `at`, Apple's marker OIDs. Not checked: revocation (no OCSP or CRL).
            verify: (jws, at) => {
              const result = verifyAppleJws(jws, roots, new Date(DateTime.toEpochMillis(at)))
              return result.ok ? Effect.succeed(result.payload) : Effect.fail(new InvalidSignature({ reason: result.reason }))
            }
          })
        )
      )
    )
}
