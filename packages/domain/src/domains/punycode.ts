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

// 0–25 are a–z, 26–35 are 0–9.
const digitOf = (d: number): string => String.fromCharCode(d < 26 ? 97 + d : 22 + d)

/** Punycode (RFC 3492) of one label, without the `xn--` prefix: the pure encoder IDNA needs, so the domain imports nothing. */
export const punycodeEncode = (label: string): string => {
  const input = Array.from(label, (char) => char.codePointAt(0) ?? 0)
  const basic = input.filter((c) => c < 0x80)
  let output = String.fromCharCode(...basic)
  const basicCount = basic.length
  let handled = basicCount
  if (basicCount > 0) output += "-"
  let n = initialN
  let delta = 0
  let bias = initialBias
  while (handled < input.length) {
    const m = Math.min(...input.filter((c) => c >= n))
    delta += (m - n) * (handled + 1)
    n = m
    for (const c of input) {
      if (c < n) delta++
      if (c !== n) continue
      let q = delta
      for (let k = base; ; k += base) {
        const t = k <= bias ? tMin : k >= bias + tMax ? tMax : k - bias
        if (q < t) break
        output += digitOf(t + ((q - t) % (base - t)))
        q = Math.floor((q - t) / (base - t))
      }
      output += digitOf(q)
      bias = adapt(delta, handled + 1, handled === basicCount)
      delta = 0
      handled++
    }
    delta++
    n++
  }
  return output
}
