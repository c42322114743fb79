import { Option } from "effect"

// RFC 3492 parameters for IDNA.
const base = 36
const tMin = 1
const tMax = 26
const skew = 38
const damp = 700
const initialBias = 72
const initialN = 128

const adapt = (delta: number, points: number, first: boolean): number => {
  let d = first ? Math.floor(delta / damp) : Math.floor(delta / 2)
  d += Math.floor(d / points)
  let k = 0
  while (d > ((base - tMin) * tMax) >> 1) {
    d = Math.floor(d / (base - tMin))
    k += base
  }
  return k + Math.floor(((base - tMin + 1) * d) / (d + skew))
}

// a–z are 0–25, 0–9 are 26–35; anything else is not a digit.
const digitValue = (char: string): number => {
  const c = char.charCodeAt(0)
  return c >= 97 && c <= 122 ? c - 97 : c >= 48 && c <= 57 ? c - 22 : base
}

/**
 * The Unicode label a punycode string (RFC 3492, without `xn--`, lower-case) stands for; none when it is not valid
 * punycode. Only decoding lives here (the global WHATWG `URL` encodes, by UTS #46); the app's property test holds it to
 * Node's `domainToUnicode`.
 */
export const punycodeDecode = (input: string): Option.Option<string> => {
  const delimiter = input.lastIndexOf("-")
  const output = delimiter > 0 ? Array.from(input.slice(0, delimiter), (char) => char.codePointAt(0) ?? 0) : []
  if (output.some((c) => c >= 0x80)) return Option.none()
  let n = initialN
  let bias = initialBias
  let i = 0
  for (let pos = delimiter > 0 ? delimiter + 1 : 0; pos < input.length;) {
    const before = i
    for (let w = 1, k = base; ; k += base) {
      if (pos >= input.length) return Option.none()
      const digit = digitValue(input.charAt(pos++))
      if (digit >= base) return Option.none()
      i += digit * w
      if (i > 0x7fffffff) return Option.none()
      const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
      if (digit < t) break
      w *= base - t
    }
    bias = adapt(i - before, output.length + 1, before === 0)
    n += Math.floor(i / (output.length + 1))
    i %= output.length + 1
    if (n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return Option.none()
    output.splice(i, 0, n)
    i++
  }
  return Option.some(String.fromCodePoint(...output))
}
