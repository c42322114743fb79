import { fileURLToPath } from "node:url"
import type { ContractDocument } from "@atrium/client"

/** Where the committed snapshot of a document lives (`packages/adapters-http/contract/<slug>.openapi.json`). */
export const snapshotPath = (document: ContractDocument) => fileURLToPath(new URL(`../contract/${document.slug}.openapi.json`, import.meta.url))

/** How to refresh the snapshots after an additive change. */
export const refreshHint = "run `npm run contract:snapshot`, bump the document's minor version (contract/openapi-documents.ts) and commit both"
