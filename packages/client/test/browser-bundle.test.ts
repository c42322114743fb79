import { describe, expect, it } from "@effect/vitest"
import { build, type BuildOptions, type Plugin } from "esbuild"
import { builtinModules } from "node:module"
import { join } from "node:path"

const entry = join(import.meta.dirname, "..", "src", "index.ts")
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]))

// Bundles like a browser (or React Native) app would, recording every Node built-in the code asks for instead of failing
// at the first one, so the test names them all.
const bundle = async (options: BuildOptions) => {
  const asked: Array<string> = []
  const recordBuiltins: Plugin = {
    name: "record-node-builtins",
    setup(build) {
      build.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
        if (!args.path.startsWith("node:") && !builtins.has(args.path)) return undefined
        asked.push(`${args.path} (from ${args.importer.slice(args.importer.lastIndexOf("node_modules") + 1)})`)
        return { path: args.path, external: true }
      })
    }
  }
  const result = await build({ bundle: true, format: "esm", write: false, logLevel: "silent", ...options, plugins: [recordBuiltins] })
  return { asked, bytes: result.outputFiles?.reduce((sum, file) => sum + file.contents.byteLength, 0) ?? 0 }
}

describe("@atrium/client bundles for browsers and React Native", () => {
  it("bundles for the browser with no Node built-in", async () => {
    const { asked, bytes } = await bundle({ entryPoints: [entry], platform: "browser", minify: true })
    expect(asked).toEqual([])
    expect(bytes).toBeGreaterThan(10_000)
  }, 120_000)

  it("bundles with React Native's resolution conditions with no Node built-in", async () => {
    const { asked } = await bundle({
      entryPoints: [entry],
      platform: "neutral",
      conditions: ["react-native", "browser", "import"],
      mainFields: ["react-native", "browser", "module", "main"]
    })
    expect(asked).toEqual([])
  }, 120_000)

  it("names a Node built-in that sneaks in (the check above can fail)", async () => {
    const { asked } = await bundle({
      stdin: { contents: `export * from ${JSON.stringify(entry)}\nexport { randomBytes } from "node:crypto"`, resolveDir: import.meta.dirname, loader: "ts" },
      platform: "browser"
    })
    expect(asked).toEqual([expect.stringMatching(/^node:crypto /)])
  }, 120_000)
})
