import { beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { emitDeclarations, entryPoints, extractReport } from "../api-report.ts"

// The library's twin of the OpenAPI snapshot: the committed API Extractor report of each published entry point is the
// surface its emitted declarations publish. API Extractor analyses the whole of `effect` per entry: tens of seconds each.
describe("the API reports of the published packages", () => {
  beforeAll(() => {
    // `tsc -b` as `npm test` runs it (up to date there): the reports read the declarations the build publishes.
    emitDeclarations()
  }, 300_000)

  it("covers every published entry point, each with a committed report", () => {
    const specifiers = entryPoints().map((entry) => entry.specifier)
    expect(specifiers).toEqual(["@atrium/domain", "@atrium/domain/testing", "@atrium/client", "@atrium/adapters-pg", "@atrium/adapters-pg/testing"])
    expect(entryPoints().filter((entry) => !existsSync(entry.report)).map((entry) => entry.report)).toEqual([])
  })

  for (const entry of entryPoints()) {
    it(`${entry.specifier}: the committed report is its surface (else run \`npm run api:report\` and commit the diff)`, () => {
      const result = extractReport(entry, false)
      expect(result.errorCount).toBe(0)
      expect(result.apiReportChanged).toBe(false)
    }, 300_000)
  }
})
