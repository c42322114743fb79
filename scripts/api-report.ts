/**
 * API Extractor's reports of every published entry point (`packages/<name>/api/*.api.md`), read from the declarations
 * `tsc -b` emits into `.tsbuild/`. `npm run api:report` rewrites them; `test/api-report.test.ts` fails when the
 * emitted surface differs from the committed report.
 */
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorResult } from "@microsoft/api-extractor"
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { packageDir, publishedPackages, root } from "./published-packages.ts"

interface Manifest {
  readonly name: string
  readonly publishConfig: { readonly exports: Record<string, { readonly types: string }> }
}

/** One published entry point: `@atrium/domain/testing` and where its declarations and report live. */
export interface EntryPoint {
  readonly specifier: string
  readonly packageName: string
  readonly declarations: string
  readonly report: string
}

/** Every entry point of every published package, from the exports its manifest publishes. */
export const entryPoints = (): ReadonlyArray<EntryPoint> =>
  publishedPackages.flatMap((name) => {
    const dir = packageDir(name)
    const manifest: Manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
    return Object.entries(manifest.publishConfig.exports).map(([subpath, conditions]) => {
      const file = subpath === "." ? name : `${name}-${subpath.slice(2).replaceAll("/", "-")}`
      return {
        specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
        packageName: name,
        declarations: join(dir, ".tsbuild", "src", relative("dist", conditions.types)),
        report: join(dir, "api", `${file}.api.md`)
      }
    })
  })

/** Emits the declarations (as `tsc -b` does for `npm test`; up to date there), so the reports read what the build publishes. */
export const emitDeclarations = () =>
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-b", ...publishedPackages.map(packageDir)], { stdio: "inherit" })

/**
 * Runs API Extractor on one entry point. `update`: rewrite the committed report; otherwise leave it and say whether it
 * differs (the new one is then in the temp folder). Release tags are not used: everything exported is public.
 */
export const extractReport = (entry: EntryPoint, update: boolean): ExtractorResult => {
  const dir = packageDir(entry.packageName)
  mkdirSync(join(dir, "api"), { recursive: true })
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: entry.declarations,
      compiler: {
        // API Extractor analyses with its own TypeScript 5; these options let it read TypeScript 7's `.ts` specifiers.
        overrideTsconfig: {
          compilerOptions: {
            target: "es2024",
            lib: ["es2024", "DOM"],
            module: "nodenext",
            moduleResolution: "nodenext",
            allowImportingTsExtensions: true,
            noEmit: true,
            strict: true,
            skipLibCheck: true,
            types: entry.packageName === "adapters-pg" ? ["node"] : []
          }
        }
      },
      apiReport: {
        enabled: true,
        reportFileName: relative(join(dir, "api"), entry.report).replace(/\.api\.md$/, ""),
        reportFolder: join(dir, "api"),
        reportTempFolder: join(tmpdir(), "atrium-api-report", entry.packageName)
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          // Not in the report: its notes name absolute paths, so a report written in one checkout would differ in another.
          default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false }
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } }
      }
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(dir, "package.json")
  })
  return Extractor.invoke(config, { localBuild: update, showVerboseMessages: false, showDiagnostics: false })
}

if (import.meta.main) {
  emitDeclarations()
  for (const entry of entryPoints()) {
    const result = extractReport(entry, true)
    console.log(`${relative(root, entry.report)}: ${result.apiReportChanged ? "rewritten" : "unchanged"} (${result.errorCount} errors, ${result.warningCount} warnings)`)
  }
}
