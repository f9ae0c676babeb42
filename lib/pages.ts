/**
 * Page arithmetic shared by every paged list (docs/api.md, "Lists and pages"):
 * pages count from 1, a page holds `per_page` rows, `total` counts the matching
 * rows on all pages. A page past the end is empty, never an error.
 */

/** The page a caller asks for (validated by the `Pagination` query: page >= 1, per_page 1..100). */
export interface PageRequest {
  page: number
  per_page: number
}

/** What a paged list answers beside its rows (schemas/common.ts `PageInfo`). */
export interface PageInfo extends PageRequest {
  total: number
}

/** The SQL window of a page: `LIMIT limit OFFSET offset`. */
export function pageWindow ({ page, per_page: perPage }: PageRequest): { limit: number, offset: number } {
  return { limit: perPage, offset: (page - 1) * perPage }
}

/** A page of rows already in memory (a list bounded by its nature, filtered in code), in their order. */
export function slicePage<T> (rows: readonly T[], request: PageRequest): T[] {
  const { limit, offset } = pageWindow(request)
  return rows.slice(offset, offset + limit)
}

export function pageInfo (request: PageRequest, total: number): PageInfo {
  return { page: request.page, per_page: request.per_page, total }
}
