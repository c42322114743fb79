/**
 * Writes the committed snapshots of the contract's documents (`packages/adapters-http/contract/<slug>.openapi.json`)
 * from the current `Api`. Run `npm run contract:snapshot` after an additive change, bump the document's minor version,
 * and commit both: the snapshot test diffs every build against them and fails on any breaking change.
 */
import { writeFileSync } from "node:fs"
import { Api } from "@atrium/client"
import { contractDocuments, openApiDocument, snapshotText } from "@atrium/client"
import { snapshotPath } from "./snapshot-path.ts"

for (const document of contractDocuments) {
  writeFileSync(snapshotPath(document), snapshotText(openApiDocument(Api, document)))
  console.log(`wrote ${snapshotPath(document)} (${document.title} ${document.version})`)
}
