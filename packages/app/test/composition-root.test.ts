import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const packages = join(import.meta.dirname, "..", "..")

describe("the packages' wiring", () => {
  it("every export of every package.json names a file that exists", () => {
    const missing = readdirSync(packages).flatMap((name) => {
      const manifest = join(packages, name, "package.json")
      if (!existsSync(manifest)) return []
      const exports: unknown = JSON.parse(readFileSync(manifest, "utf8")).exports ?? {}
      return Object.entries(typeof exports === "object" && exports !== null ? exports : {})
        .flatMap(([entry, target]) => typeof target === "string" && !target.includes("*") && !existsSync(join(packages, name, target)) ? [`${name} ${entry} → ${target}`] : [])
    })
    expect(missing).toEqual([])
  })

  it("the composition root provides each adapter layer once", () => {
    const source = readFileSync(join(import.meta.dirname, "..", "src", "domain-layer.ts"), "utf8")
    // One layer expression a line, in the body of `AppDomain.layerWith` (Layer.* combinators aside).
    const provided = source.slice(source.indexOf("const layerWith")).split("\n").map((line) => line.trim())
      .filter((line) => /^[A-Za-z][\w.]*\(.*\),?$/.test(line) && !line.startsWith("Layer."))
    expect(provided.filter((line, index) => provided.indexOf(line) !== index)).toEqual([])
    expect(provided).toContain("storesLayer(config.stores),")
  })
})
