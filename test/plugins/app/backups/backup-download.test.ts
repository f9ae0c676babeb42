import fc from 'fast-check'
import t from 'tap'
import { parseRange } from '../../../../plugins/app/backups/backup-download.ts'

function outcome (header: string | undefined, size: number): { start: number, end: number } | undefined | 'unsatisfiable' {
  try {
    return parseRange(header, size)
  } catch (error) {
    if ((error as { code?: string }).code === 'BACKUP_RANGE_NOT_SATISFIABLE') return 'unsatisfiable'
    throw error
  }
}

t.test('a satisfiable range is inside the archive, and a resumed download joins up with what came before', async (t) => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.nat(), fc.option(fc.nat()), (size, first, last) => {
    const header = `bytes=${first}-${last ?? ''}`
    const range = outcome(header, size)
    if (last !== null && last < first) return range === undefined // invalid: the whole archive
    if (first >= size) return range === 'unsatisfiable'
    return typeof range === 'object' && range.start === first && range.end === Math.min(last ?? size - 1, size - 1) && range.end < size
  }), { numRuns: 2000 })
  t.pass()
})

t.test('a suffix range is the last n bytes (all of them when n is larger)', async (t) => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 1, max: 2 ** 41 }), (size, suffix) => {
    const range = outcome(`bytes=-${suffix}`, size)
    return typeof range === 'object' && range.end === size - 1 && range.end - range.start + 1 === Math.min(suffix, size)
  }), { numRuns: 2000 })
  t.equal(outcome('bytes=-0', 10), 'unsatisfiable')
})

t.test('anything but one byte range is answered with the whole archive', async (t) => {
  for (const header of [undefined, '', 'bytes=-', 'items=0-5', 'bytes=0-1,4-5', 'bytes=a-b', 'bytes 0-5']) {
    t.equal(outcome(header, 100), undefined, String(header))
  }
})
