// Words too common to say two titles ask for the same thing.
const stopWords = new Set(["the", "and", "for", "with", "add", "allow", "support", "please", "feature", "request", "option", "able", "should", "would", "could", "can", "from", "into", "your", "our", "this", "that", "when", "have"])

/** The words of a title that carry meaning: NFKC, lower-case, letters and digits, three or more characters, no stop words. */
export const titleWords = (title: string): ReadonlySet<string> =>
  new Set(
    title.normalize("NFKC").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 3 && !stopWords.has(word))
  )

/**
 * How alike two titles are: the Jaccard index of their meaningful words (shared words over all words), 0 to 1.
 * Titles at 0.5 or more are offered as possible duplicates when a request is created.
 */
export const titleSimilarity = (a: string, b: string): number => {
  const left = titleWords(a)
  const right = titleWords(b)
  if (left.size === 0 || right.size === 0) return 0
  let shared = 0
  for (const word of left) if (right.has(word)) shared++
  return shared / (left.size + right.size - shared)
}

/** The similarity from which a title counts as a possible duplicate. */
export const duplicateThreshold = 0.5
