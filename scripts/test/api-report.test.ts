import { beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { emitDeclarations, entryExports, renderReport, reportPath } from "../api-report.ts"
import { publishedPackages } from "../published-packages.ts"

// The report's declarations, one per `// name` heading, to name what changed.
const declarationsOf = (report: string) =>
  new Map(report.split("\n// ").slice(1).map((block) => [block.slice(0, block.indexOf("\n")), block]))

describe("the API reports of the published packages", () => {
  // `tsc -b` as `npm test` runs it (up to date there): the report reads the declarations the build publishes.
  beforeAll(() => {
    emitDeclarations()
  }, 300_000)

  for (const name of publishedPackages) {
    it(`${name}: the committed api-report.md is the surface its declarations publish`, () => {
      const generated = renderReport(name).text
      const committed = readFileSync(reportPath(name), "utf8")
      const before = declarationsOf(committed)
      const after = declarationsOf(generated)
      const changed = [
        ...[...after.keys()].filter((key) => !before.has(key)).map((key) => `added ${key}`),
        ...[...before.keys()].filter((key) => !after.has(key)).map((key) => `removed ${key}`),
        ...[...after].filter(([key, text]) => before.has(key) && before.get(key) !== text).map(([key]) => `changed ${key}`)
      ]
      expect(changed, "the published surface changed: run `npm run api:report`, review the diff and commit it").toEqual([])
      expect(generated).toEqual(committed)
    })
  }

  it("follows names, aliases, stars and class bases through declaration files (the check above cannot pass vacuously)", () => {
    const files: Record<string, string> = {
      "index.d.ts": `export * from "./a.ts";\nexport { Inner as Outer } from "./b.ts";\nexport { Schema } from "effect";\n`,
      "a.d.ts": `import { Context } from "effect";\n/** docs */\nexport interface Input {\n    readonly name: string;\n}\ndeclare const Service_base: Context.ServiceClass<Service, "S", {\n    readonly run: (input: Input) => void;\n}>;\nexport declare class Service extends Service_base {\n}\nexport {};\n`,
      "b.d.ts": `export declare const Inner: number;\nexport declare function hidden(): void;\n`
    }
    const exports = entryExports((path) => files[path], "index.d.ts")
    expect([...exports.keys()]).toEqual(["Input", "Outer", "Schema", "Service"])
    expect(exports.get("Service")).toContain("readonly run: (input: Input) => void;")
    expect(exports.get("Outer")).toBe("export declare const Inner: number;")
    expect(exports.get("Input")).not.toContain("docs")
  })
})
