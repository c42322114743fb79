const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** Encodes bytes as a fixed-width base62 string (left-padded with `0`). */
export const encodeBase62 = (bytes: Uint8Array, width: number): string => {
  let value = 0n
  for (const byte of bytes) value = (value << 8n) | BigInt(byte)
  let out = ""
  while (value > 0n) {
    out = alphabet[Number(value % 62n)] + out
    value /= 62n
  }
  return out.padStart(width, "0")
}

/** Encodes a non-negative integer as a fixed-width base62 string. */
export const encodeBase62Int = (value: number, width: number): string => {
  let rest = value
  let out = ""
  while (rest > 0) {
    out = alphabet[rest % 62] + out
    rest = Math.floor(rest / 62)
  }
  return out.padStart(width, "0")
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (IEEE) of an ASCII string: a cheap checksum that spots typos and made-up tokens offline. */
export const crc32 = (text: string): number => {
  let crc = 0xffffffff
  for (let i = 0; i < text.length; i++) {
    crc = (crcTable[(crc ^ text.charCodeAt(i)) & 0xff] ?? 0) ^ (crc >>> 8)
  }
  return (crc ^ 0xffffffff) >>> 0
}
