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
export const extensionOids = (certificate: Uint8Array): ReadonlyArray<string> => {
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
