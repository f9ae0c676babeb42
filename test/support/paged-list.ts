import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { bearer } from './accounts.ts'

interface PagedList {
  /** The list route, e.g. `/api/users` (no query string). */
  url: string
  /** The array's key in the answer, e.g. `users`. */
  key: string
  token: string
  /** The ids the caller's company has in this list (another company's rows must not appear). */
  expected: Array<string | number>
  /** A page size smaller than the list, so it spans pages. */
  perPage: number
  /** The answer also carries `total`, `page` and `per_page` at the top level (kept from before `pagination`). */
  topLevel?: 'total' | 'all'
}

/**
 * The rules of docs/api.md "Lists and pages", over HTTP: without `page` the
 * first 25 (here: every row); the pages are disjoint, in one order, and
 * together the whole list; `total` counts the company's rows on every page; a
 * page past the end is empty with the same total; per_page 101, 0 and page 0
 * are 400 VALIDATION_FAILED.
 */
export async function checkPagedList (t: Test, app: FastifyInstance, list: PagedList): Promise<void> {
  const get = async (query: string) => {
    const response = await app.inject({ method: 'GET', url: `${list.url}${query}`, headers: bearer(list.token) })
    return { status: response.statusCode, json: response.json() }
  }
  const idsOf = (json: Record<string, any>) => (json[list.key] as Array<{ id: string | number }>).map((row) => row.id)
  const total = list.expected.length
  t.ok(total > list.perPage, `${list.url}: more rows (${total}) than one page (${list.perPage})`)

  const whole = await get('')
  t.equal(whole.status, 200, `${list.url}: ${JSON.stringify(whole.json).slice(0, 300)}`)
  t.same(whole.json.pagination, { page: 1, per_page: 25, total }, `${list.url}: defaults page 1 of 25`)
  t.same([...idsOf(whole.json)].sort(), [...list.expected].sort(), `${list.url}: without page, every row of the company (fewer than 25), none of another's`)

  const seen: Array<string | number> = []
  const pages = Math.ceil(total / list.perPage)
  for (let page = 1; page <= pages; page++) {
    const answer = await get(`?page=${page}&per_page=${list.perPage}`)
    t.equal(answer.status, 200)
    t.same(answer.json.pagination, { page, per_page: list.perPage, total }, `${list.url} page ${page}: pagination`)
    if (list.topLevel === 'all') t.match(answer.json, { total, page, per_page: list.perPage }, `${list.url} page ${page}: the top-level numbers kept`)
    if (list.topLevel === 'total') t.equal(answer.json.total, total, `${list.url} page ${page}: the top-level total kept`)
    const ids = idsOf(answer.json)
    t.equal(ids.length, page < pages ? list.perPage : total - list.perPage * (pages - 1), `${list.url} page ${page}: its size`)
    t.notOk(ids.some((id) => seen.includes(id)), `${list.url} page ${page}: no row of an earlier page`)
    seen.push(...ids)
  }
  t.same(seen, idsOf(whole.json), `${list.url}: the pages together are the whole list, in its order`)

  const past = await get(`?page=${pages + 1}&per_page=${list.perPage}`)
  t.equal(past.status, 200)
  t.same(past.json[list.key], [], `${list.url}: a page past the end is empty`)
  t.same(past.json.pagination, { page: pages + 1, per_page: list.perPage, total }, `${list.url}: … with the right total`)

  for (const query of ['?per_page=101', '?per_page=0', '?page=0', '?page=x']) {
    const refused = await get(query)
    t.equal(refused.status, 400, `${list.url}${query}`)
    t.equal(refused.json.error?.code, 'VALIDATION_FAILED', `${list.url}${query}: VALIDATION_FAILED`)
  }
}
