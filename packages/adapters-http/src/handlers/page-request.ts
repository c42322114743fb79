import type { PageRequest } from "@atrium/domain"

const defaultLimit = 20

/** The domain's page request from a decoded `PageQuery`. */
export const pageRequestOf = (query: { readonly limit?: number | undefined; readonly cursor?: string | undefined }): PageRequest => ({
  limit: query.limit ?? defaultLimit,
  cursor: query.cursor
})
