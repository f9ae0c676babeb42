import t from 'tap'
import fc from 'fast-check'
import { pageInfo, pageWindow, slicePage } from '../../lib/pages.ts'

const request = fc.record({ page: fc.integer({ min: 1, max: 50 }), per_page: fc.integer({ min: 1, max: 100 }) })
const rows = fc.array(fc.nat(), { maxLength: 400 })

t.test('the pages of a list are disjoint, in order, and together the whole list', async (t) => {
  fc.assert(fc.property(rows, fc.integer({ min: 1, max: 100 }), (list, perPage) => {
    const pages = Math.max(1, Math.ceil(list.length / perPage))
    const joined: number[] = []
    for (let page = 1; page <= pages; page++) {
      const slice = slicePage(list, { page, per_page: perPage })
      if (slice.length > perPage) return false
      if (page < pages && slice.length !== perPage) return false
      joined.push(...slice)
    }
    return joined.length === list.length && joined.every((value, index) => value === list[index])
  }), { numRuns: 300 })
})

t.test('a page past the end is empty; the window matches the slice', async (t) => {
  fc.assert(fc.property(rows, request, (list, asked) => {
    const { limit, offset } = pageWindow(asked)
    const slice = slicePage(list, asked)
    if (limit !== asked.per_page || offset !== (asked.page - 1) * asked.per_page) return false
    if (offset >= list.length) return slice.length === 0
    return slice.length === Math.min(limit, list.length - offset) && slice[0] === list[offset]
  }), { numRuns: 300 })
})

t.test('page info echoes the request with the total', async (t) => {
  fc.assert(fc.property(request, fc.nat(), (asked, total) => {
    const info = pageInfo(asked, total)
    return info.page === asked.page && info.per_page === asked.per_page && info.total === total && Object.keys(info).length === 3
  }))
  t.same(pageWindow({ page: 3, per_page: 25 }), { limit: 25, offset: 50 })
})
