import type { PageRequest } from "@atrium/domain"

const defaultLimit = 20

/** The decoded `PageQuery` of a list request. */
export interface PageParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** The domain's page request from a decoded `PageQuery`. */
export const pageRequestOf = (query: PageParams): PageRequest => ({
  limit: query.limit ?? defaultLimit,
  cursor: query.cursor
})
