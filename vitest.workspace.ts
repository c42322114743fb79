import { defineConfig } from "vitest/config"

const packages = ["domain", "client", "adapters-http", "adapters-pg", "adapters-webhook", "adapters-smtp", "app"]

// vitest 5 reads projects from the config it is given; `npm test` names this file.
export default defineConfig({
  test: {
    projects: [
      ...packages.map((name) => ({
        test: {
          name,
          root: `packages/${name}`,
          include: ["test/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // The domain's tests share no global state (each builds its own layers): one module load per worker, not per
          // file, cut its suite from ~66–108 s to ~17–20 s of wall time on a loaded 2-core machine.
          ...(name === "domain" ? { isolate: false } : {})
        }
      })),
      // The repository's own tooling: the published packages' API reports.
      { test: { name: "scripts", root: "scripts", include: ["test/**/*.test.ts"], testTimeout: 60_000 } }
    ]
  }
})
