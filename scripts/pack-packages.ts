/**
 * Builds the published packages with TypeScript's own emit (JavaScript, `.d.ts`, source maps) and packs each into a
 * tarball whose manifest points at the build: `npm run pack -- <out dir>` (default `.pack/`). The manifests in the
 * repository keep pointing at `src/*.ts`, so `npm start` and the tests never need this step.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { packageDir, publishedPackages, root } from "./published-packages.ts"

interface Manifest {
  readonly name: string
  readonly version: string
  readonly files?: ReadonlyArray<string>
  readonly publishConfig?: { readonly exports?: unknown }
  readonly dependencies?: Record<string, string>
  readonly [field: string]: unknown
}

/** What `npm pack --json` says of one tarball. */
export interface PackedTarball {
  readonly name: string
  readonly filename: string
  readonly size: number
  readonly unpackedSize: number
  readonly entryCount: number
}

const readManifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))

/** The manifest as published: exports from `publishConfig`, sibling packages pinned to the version built with them. */
export const publishedManifest = (manifest: Manifest, versions: ReadonlyMap<string, string>): Record<string, unknown> => {
  const { private: _private, publishConfig, devDependencies: _dev, scripts: _scripts, ...rest } = manifest
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies ?? {}).map(([name, range]) => [name, versions.get(name) ?? range])
  )
  return { ...rest, exports: publishConfig?.exports, ...(manifest.dependencies === undefined ? {} : { dependencies }) }
}

/** Builds every published package afresh into its `dist/`. */
export const buildPackages = () => {
  for (const name of publishedPackages) {
    rmSync(join(packageDir(name), "dist"), { recursive: true, force: true })
    rmSync(join(packageDir(name), ".tsbuild", "dist.tsbuildinfo"), { force: true })
  }
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-b", ...publishedPackages.map((name) => join(packageDir(name), "tsconfig.build.json"))], {
    stdio: "inherit"
  })
}

/** Packs the built packages into `out`, each from a staging folder holding its published manifest and its files. */
export const packPackages = (out: string): ReadonlyArray<PackedTarball> => {
  const manifests = publishedPackages.map((name) => ({ dir: packageDir(name), manifest: readManifest(packageDir(name)) }))
  const versions = new Map(manifests.map(({ manifest }) => [manifest.name, manifest.version]))
  const staging = join(root, ".pack", "staging")
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  return manifests.map(({ dir, manifest }) => {
    const stage = join(staging, manifest.name.replace("/", "+"))
    mkdirSync(stage, { recursive: true })
    for (const entry of manifest.files ?? []) cpSync(join(dir, entry), join(stage, entry), { recursive: true })
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(publishedManifest(manifest, versions), null, 2)}\n`)
    const output = execFileSync("npm", ["pack", stage, "--json", "--ignore-scripts", "--pack-destination", out], { encoding: "utf8" })
    const [packed]: ReadonlyArray<PackedTarball> = JSON.parse(output)
    if (packed === undefined) throw new Error(`npm pack printed no tarball for ${manifest.name}`)
    return packed
  })
}

if (import.meta.main) {
  const out = resolve(process.argv[2] ?? join(root, ".pack"))
  buildPackages()
  for (const packed of packPackages(out)) {
    console.log(`${join(out, packed.filename)}  ${(packed.size / 1024).toFixed(1)} kB packed, ${(packed.unpackedSize / 1024).toFixed(1)} kB unpacked, ${packed.entryCount} files`)
  }
}
