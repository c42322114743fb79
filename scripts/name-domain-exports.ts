/**
 * Rewrites each area's `index.ts` in packages/domain/src to name what it exports: a name stays public when code outside
 * its area imports it (another area through the index, any other package, test, benchmark, script or example through
 * `@atrium/domain`), or when the declaration of a public name mentions it (so a caller can name every type in a public
 * signature). Run it after a merge that adds exports: `node scripts/name-domain-exports.ts`, then `npm run api:report`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { root } from "./published-packages.ts"

const domainSrc = join(root, "packages", "domain", "src")

interface Exported {
  readonly name: string
  readonly area: string
  readonly file: string
  readonly value: boolean
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === "node_modules" || name.startsWith(".") || name === "dist") return []
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : []
  })

const areas = readdirSync(domainSrc).filter((name) => name !== "testing" && statSync(join(domainSrc, name)).isDirectory())

// Every name an area file exports, and whether it has a value (a `type` export otherwise).
const exported: ReadonlyArray<Exported> = areas.flatMap((area) =>
  sourceFiles(join(domainSrc, area)).filter((file) => !file.endsWith("/index.ts")).flatMap((file) => {
    const found = new Map<string, boolean>()
    for (const match of readFileSync(file, "utf8").matchAll(/^export (?:declare )?(?:async )?(?:abstract )?(const|let|function\*?|class|enum|namespace|interface|type) ([A-Za-z_$][\w$]*)/gm)) {
      const name = match[2] ?? ""
      found.set(name, (found.get(name) ?? false) || !["interface", "type"].includes(match[1] ?? ""))
    }
    return [...found].map(([name, value]) => ({ name, area, file, value }))
  })
)
const byName = new Map(exported.map((entry) => [entry.name, entry]))

const importedNames = (source: string, specifier: RegExp) =>
  [...source.matchAll(/(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)]
    .filter((match) => specifier.test(match[2] ?? ""))
    .flatMap((match) => (match[1] ?? "").split(",").map((part) => part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0] ?? "").filter((name) => name !== ""))

// Names used outside their area: by other areas and the domain's own composition through `../<area>/index.ts`, by
// everything else through `@atrium/domain`.
const used = new Set<string>()
const scanned = [join(root, "packages"), join(root, "examples"), join(root, "scripts")].flatMap(sourceFiles)
for (const file of scanned) {
  const source = readFileSync(file, "utf8")
  const inDomain = file.startsWith(`${domainSrc}/`)
  const area = inDomain ? relative(domainSrc, file).split("/")[0] : undefined
  if (inDomain) {
    for (const match of source.matchAll(/from\s*"\.\.?\/([a-z-]+)\/index\.ts"/g)) {
      if (match[1] === area) continue
      for (const name of importedNames(source, new RegExp(`/${match[1]}/index\\.ts$`))) used.add(name)
    }
  } else {
    for (const name of importedNames(source, /^@atrium\/domain$/)) used.add(name)
  }
}

// A public name's declaration mentions another exported name: that one is public too.
const publicNames = new Set([...used].filter((name) => byName.has(name)))
const declarationOf = (entry: Exported) => {
  const dts = join(root, "packages", "domain", ".tsbuild", "src", relative(domainSrc, entry.file).replace(/\.ts$/, ".d.ts"))
  return readFileSync(dts, "utf8")
}
const mentioned = (entry: Exported) => {
  const text = declarationOf(entry)
  const statements = text.split(/\n(?=[^\s})\]>|&,])/).filter((statement) =>
    new RegExp(`^(?:export )?(?:declare )?(?:abstract )?(?:const|let|function|class|interface|type|enum|namespace) (?:${entry.name}|${entry.name}_base)\\b`).test(statement)
  )
  return new Set(statements.join("\n").match(/[A-Za-z_$][\w$]*/g) ?? [])
}
for (let frontier = [...publicNames]; frontier.length > 0;) {
  const next: Array<string> = []
  for (const name of frontier) {
    const entry = byName.get(name)
    if (entry === undefined) continue
    for (const word of mentioned(entry)) {
      if (byName.has(word) && !publicNames.has(word)) {
        publicNames.add(word)
        next.push(word)
      }
    }
  }
  frontier = next
}

// Each area's index names its public exports file by file, in the order the index listed its files.
for (const area of areas) {
  const indexPath = join(domainSrc, area, "index.ts")
  const listed = [...readFileSync(indexPath, "utf8").matchAll(/export (?:\* |(?:type )?\{[^}]*\} )from "\.\/([^"]+)"/g)].map((match) => match[1] ?? "")
  const files = [...listed, ...exported.filter((entry) => entry.area === area).map((entry) => relative(join(domainSrc, area), entry.file)).filter((file) => !listed.includes(file))]
  const lines = [...new Set(files)].flatMap((file) => {
    const names = exported
      .filter((entry) => entry.area === area && relative(join(domainSrc, area), entry.file) === file && publicNames.has(entry.name))
      .sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1))
      .map((entry) => (entry.value ? entry.name : `type ${entry.name}`))
    return names.length === 0 ? [] : [`export { ${names.join(", ")} } from "./${file}"`]
  })
  if (listed.length === 0) continue
  writeFileSync(indexPath, `${lines.join("\n")}\n`)
}

const total = exported.length
console.log(`${publicNames.size} of ${total} exported names of the areas stay public (${used.size} imported outside their area before the closure)`)
