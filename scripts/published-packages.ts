import { join } from "node:path"

/** The repository's root. */
export const root = join(import.meta.dirname, "..")

/** The packages a user may install, in dependency order: each is built to `dist/` and packed from there. */
export const publishedPackages = ["domain", "client", "adapters-pg"] as const

/** The folder of a published package. */
export const packageDir = (name: string) => join(root, "packages", name)
