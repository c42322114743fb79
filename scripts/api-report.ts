/**
 * The API report of every published package: each entry point's exported names with their declarations, read from the
 * `.d.ts` files TypeScript emits (API Extractor's analyser is TypeScript 5 and does not read TypeScript 7's
 * declarations with `.ts` specifiers). `npm run api:report` rewrites the committed reports; `api-report.test.ts` fails
 * when the emitted surface differs from them.
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { packageDir, publishedPackages, root } from "./published-packages.ts"

/** One top-level statement of a declaration file that declares a name. */
interface Declaration {
  readonly name: string
  readonly exported: boolean
  readonly text: string
}

/** How a module makes a name public. */
type Export =
  | { readonly kind: "local"; readonly exported: string; readonly local: string }
  | { readonly kind: "from"; readonly exported: string; readonly imported: string; readonly module: string }
  | { readonly kind: "star"; readonly module: string }

/** What the report needs of one declaration file. */
interface ModuleFacts {
  readonly declarations: ReadonlyArray<Declaration>
  readonly imports: ReadonlyMap<string, { readonly module: string; readonly imported: string }>
  readonly exports: ReadonlyArray<Export>
}

// A declaration longer than this is summarised by its start, length and digest: it still fails the check when it changes.
const longDeclaration = 2_000

const declarationPattern = /^(export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:const|let|var|function|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/

// tsc prints each top-level statement from column 0 and indents what continues it.
const statementsOf = (source: string): ReadonlyArray<string> => {
  const statements: Array<string> = []
  for (const line of source.split("\n")) {
    const continues = line === "" || /^[\s})\]>|&,]/.test(line) || line.startsWith("*/")
    const last = statements.length - 1
    if (continues && last >= 0) statements[last] = `${statements[last]}\n${line}`
    else statements.push(line)
  }
  return statements.map((statement) => statement.trim()).filter((statement) => statement !== "" && !statement.startsWith("/*") && !statement.startsWith("//"))
}

const namesIn = (list: string) =>
  list.split(",").map((entry) => entry.trim().replace(/^type\s+/, "")).filter((entry) => entry !== "").map((entry) => {
    const [imported = entry, exported = imported] = entry.split(/\s+as\s+/)
    return { imported, exported }
  })

/** The declarations, imports and exports of one emitted declaration file. */
export const moduleFacts = (source: string): ModuleFacts => {
  const declarations: Array<Declaration> = []
  const imports = new Map<string, { module: string; imported: string }>()
  const exports: Array<Export> = []
  for (const statement of statementsOf(source)) {
    // Doc comments are not the surface: rewording one needs no new report.
    const flat = statement.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\s+/g, " ").trim()
    const declared = declarationPattern.exec(flat)
    if (declared !== null && declared[2] !== undefined) {
      declarations.push({ name: declared[2], exported: declared[1] !== undefined, text: flat })
      continue
    }
    const imported = /^import (?:type )?\{([^}]*)\} from "([^"]+)";?$/.exec(flat)
    if (imported !== null) {
      for (const { imported: name, exported: local } of namesIn(imported[1] ?? "")) imports.set(local, { module: imported[2] ?? "", imported: name })
      continue
    }
    const namespace = /^import (?:type )?\* as (\S+) from "([^"]+)";?$/.exec(flat)
    if (namespace !== null) {
      imports.set(namespace[1] ?? "", { module: namespace[2] ?? "", imported: "*" })
      continue
    }
    const star = /^export \* from "([^"]+)";?$/.exec(flat)
    if (star !== null) {
      exports.push({ kind: "star", module: star[1] ?? "" })
      continue
    }
    const named = /^export (?:type )?\{([^}]*)\}(?: from "([^"]+)")?;?$/.exec(flat)
    if (named !== null) {
      for (const { imported: name, exported } of namesIn(named[1] ?? "")) {
        exports.push(named[2] === undefined ? { kind: "local", exported, local: name } : { kind: "from", exported, imported: name, module: named[2] })
      }
    }
  }
  for (const declaration of declarations) {
    if (declaration.exported) exports.push({ kind: "local", exported: declaration.name, local: declaration.name })
  }
  return { declarations, imports, exports }
}

const summarise = (text: string) =>
  text.length <= longDeclaration
    ? text
    : `${text.slice(0, 160)} … /* ${text.length} characters, sha256 ${createHash("sha256").update(text).digest("hex").slice(0, 16)} */`

/** Reads declaration files from a folder: `dts(path)` of a `.d.ts` path relative to it. */
export type DeclarationFiles = (path: string) => string | undefined

/** Every exported name of the entry `file` with its declaration text, sorted by name. */
export const entryExports = (read: DeclarationFiles, file: string): ReadonlyMap<string, string> => {
  const facts = new Map<string, ModuleFacts | undefined>()
  const factsOf = (path: string) => {
    if (!facts.has(path)) {
      const source = read(path)
      facts.set(path, source === undefined ? undefined : moduleFacts(source))
    }
    return facts.get(path)
  }
  const target = (from: string, specifier: string) => join(dirname(from), specifier.replace(/\.(ts|js)$/, ".d.ts"))
  // The declaration of `name` in `path` with the module's unexported helpers it names (a class's `X_base`).
  const declare = (path: string, name: string, seen: Set<string>): string => {
    const module = factsOf(path)
    if (module === undefined) return `/* ${name}: ${path} is missing */`
    const own = module.declarations.filter((declaration) => declaration.name === name)
    if (own.length > 0) {
      const helpers = module.declarations.filter((declaration) =>
        !declaration.exported && !seen.has(declaration.name) && own.some((o) => new RegExp(`\\b${declaration.name.replace(/\$/g, "\\$")}\\b`).test(o.text))
      )
      for (const helper of helpers) seen.add(helper.name)
      return [...helpers.map((helper) => declare(path, helper.name, seen)), ...own.map((declaration) => summarise(declaration.text))].join("\n")
    }
    const imported = module.imports.get(name)
    if (imported === undefined) return reexported(path, module, name, seen)
    return imported.module.startsWith(".")
      ? declare(target(path, imported.module), imported.imported, seen)
      : `/* ${imported.imported === "*" ? `* as ${name}` : imported.imported} from "${imported.module}" */`
  }
  // A name this module passes on from another (`export { X } from`, `export *`) without importing it.
  const reexported = (path: string, module: ModuleFacts, name: string, seen: Set<string>): string => {
    for (const entry of module.exports) {
      if (entry.kind === "from" && entry.exported === name) {
        return entry.module.startsWith(".") ? declare(target(path, entry.module), entry.imported, seen) : `/* ${entry.imported} from "${entry.module}" */`
      }
      if (entry.kind === "star" && entry.module.startsWith(".")) {
        const inner = target(path, entry.module)
        if (entryExports(read, inner).has(name)) return declare(inner, name, seen)
      }
    }
    return `/* ${name}: no declaration found */`
  }
  const collect = (path: string, into: Map<string, string>, visiting: Set<string>) => {
    if (visiting.has(path)) return
    visiting.add(path)
    for (const entry of factsOf(path)?.exports ?? []) {
      if (entry.kind === "star") {
        if (!entry.module.startsWith(".")) into.set(`* from "${entry.module}"`, "")
        else collect(target(path, entry.module), into, visiting)
      } else if (entry.kind === "from") {
        into.set(entry.exported, entry.module.startsWith(".")
          ? declare(target(path, entry.module), entry.imported, new Set([entry.imported]))
          : `/* ${entry.imported} from "${entry.module}" */`)
      } else {
        into.set(entry.exported, declare(path, entry.local, new Set([entry.local])))
      }
    }
  }
  const found = new Map<string, string>()
  collect(file, found, new Set())
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

interface Manifest {
  readonly name: string
  readonly version: string
  readonly publishConfig: { readonly exports: Record<string, { readonly types: string }> }
}

/** Where a package's committed report lives. */
export const reportPath = (name: string) => join(packageDir(name), "api-report.md")

/** Emits the declarations (as `tsc -b` does for `npm test`), so the report reads what the build publishes. */
export const emitDeclarations = () =>
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-b", ...publishedPackages.map(packageDir)], { stdio: "inherit" })

/** The report of one published package, from the declarations `tsc -b` emitted into its `.tsbuild/src`. */
export const renderReport = (name: string): { readonly text: string; readonly counts: ReadonlyMap<string, number> } => {
  const dir = packageDir(name)
  const manifest: Manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const emitted = join(dir, ".tsbuild", "src")
  const read: DeclarationFiles = (path) => {
    const file = resolve(emitted, path)
    return existsSync(file) ? readFileSync(file, "utf8") : undefined
  }
  const counts = new Map<string, number>()
  const sections = Object.entries(manifest.publishConfig.exports).map(([subpath, conditions]) => {
    const entry = relative("dist", conditions.types)
    const exports = entryExports(read, entry)
    const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`
    counts.set(specifier, exports.size)
    const body = [...exports].map(([exported, declaration]) => declaration === "" ? `export ${exported}` : `// ${exported}\n${declaration}`)
    return `## ${specifier} (${exports.size} exports)\n\n\`\`\`ts\n${body.join("\n\n")}\n\`\`\`\n`
  })
  const text = [
    `# API report: ${manifest.name}`,
    "",
    "Generated from the emitted declarations by `npm run api:report`; a test fails when the published surface differs.",
    `Declarations over ${longDeclaration} characters are shown by their start, length and digest.`,
    "",
    ...sections
  ].join("\n")
  return { text, counts }
}

if (import.meta.main) {
  emitDeclarations()
  for (const name of publishedPackages) {
    const { text, counts } = renderReport(name)
    writeFileSync(reportPath(name), text)
    console.log(`${relative(root, reportPath(name))}: ${[...counts].map(([entry, count]) => `${entry} ${count}`).join(", ")}`)
  }
}
