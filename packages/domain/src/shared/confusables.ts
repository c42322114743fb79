// Letters of other scripts that pass for a Latin letter once lower-cased, each with the letter it passes for (after
// Unicode's confusables.txt): the one table behind every look-alike rule (email addresses, custom hostnames).
const latinLookalikes: ReadonlyMap<string, string> = new Map([
  // Cyrillic
  ["а", "a"], ["с", "c"], ["е", "e"], ["о", "o"], ["р", "p"], ["х", "x"], ["у", "y"], ["і", "i"], ["ј", "j"], ["ѕ", "s"],
  ["һ", "h"], ["ԁ", "d"], ["ԛ", "q"], ["ԝ", "w"], ["ӏ", "l"], ["ү", "y"], ["ԍ", "g"], ["ѵ", "v"],
  // Greek
  ["ο", "o"], ["α", "a"], ["ι", "i"], ["ν", "v"], ["ρ", "p"], ["υ", "u"], ["χ", "x"], ["ϳ", "j"],
  // Armenian
  ["օ", "o"], ["ս", "u"], ["հ", "h"], ["ո", "n"], ["ց", "g"], ["զ", "q"],
  // Cherokee (lower-case forms: lower-casing maps the capitals there)
  ["ꭺ", "a"], ["ꭼ", "e"], ["ꮃ", "w"], ["ꮇ", "m"], ["ꮎ", "o"], ["ꮓ", "z"], ["ꮪ", "s"], ["ꮲ", "p"], ["ꮶ", "k"], ["ꮻ", "o"]
])

/** Whether `char` (one lower-case character) is a letter of another script that passes for a Latin one. */
export const isLatinLookalike = (char: string): boolean => latinLookalikes.has(char)

/**
 * The confusable skeleton of a text (UTS #39 in spirit): NFKC, lower-case, each look-alike letter replaced by the Latin
 * letter it passes for. Two texts with one skeleton read the same to a person: compare skeletons, never display forms.
 */
export const confusableSkeleton = (text: string): string =>
  Array.from(text.normalize("NFKC").toLowerCase(), (char) => latinLookalikes.get(char) ?? char).join("")
