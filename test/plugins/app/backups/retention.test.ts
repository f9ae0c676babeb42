import fc from 'fast-check'
import t from 'tap'
import { dayOf, expiredBackups, weekOf, type RetainedBackup } from '../../../../plugins/app/backups/retention.ts'

const NOW = new Date('2026-11-25T12:00:00Z') // a Wednesday
const DAY = 86_400_000

const backupsArb = fc.uniqueArray(fc.record({
  id: fc.integer({ min: 1, max: 1_000_000 }),
  kind: fc.constantFrom('manual' as const, 'scheduled' as const),
  state: fc.constantFrom('queued' as const, 'running' as const, 'completed' as const, 'failed' as const),
  createdAt: fc.integer({ min: 0, max: 400 * DAY }).map((ago) => new Date(NOW.getTime() - ago))
}), { selector: (b) => b.id, maxLength: 80 })
const policyArb = fc.record({ keepDaily: fc.integer({ min: 0, max: 30 }), keepWeekly: fc.integer({ min: 0, max: 60 }) })

t.test('never the newest completed backup, nor a manual one, nor one under way', async (t) => {
  fc.assert(fc.property(backupsArb, policyArb, (backups, policy) => {
    const doomed = new Set(expiredBackups(backups, policy, NOW))
    const newest = [...backups].filter((b) => b.state === 'completed').sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)[0]
    if (newest !== undefined && doomed.has(newest.id)) return false
    return backups.every((b) => !doomed.has(b.id) || (b.kind === 'scheduled' && (b.state === 'completed' || b.state === 'failed')))
  }), { numRuns: 3000 })
  t.pass()
})

t.test('what is kept is exactly: per day and per week within the policy, the newest completed scheduled backup', async (t) => {
  fc.assert(fc.property(backupsArb, policyArb, (backups, policy) => {
    const doomed = new Set(expiredBackups(backups, policy, NOW))
    const kept = backups.filter((b) => b.kind === 'scheduled' && b.state === 'completed' && !doomed.has(b.id))
    const newestOf = (key: (b: RetainedBackup) => number, k: number) => {
      const candidates = backups.filter((b) => b.kind === 'scheduled' && b.state === 'completed' && b.createdAt.getTime() <= NOW.getTime() && key(b) === k)
      return candidates.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)[0]?.id
    }
    const wanted = new Set<number>()
    for (let d = 0; d < policy.keepDaily; d++) { const id = newestOf((b) => dayOf(b.createdAt), dayOf(NOW) - d); if (id !== undefined) wanted.add(id) }
    for (let w = 0; w < policy.keepWeekly; w++) { const id = newestOf((b) => weekOf(b.createdAt), weekOf(NOW) - w); if (id !== undefined) wanted.add(id) }
    const newest = [...backups].filter((b) => b.state === 'completed').sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id)[0]
    if (newest !== undefined && newest.kind === 'scheduled') wanted.add(newest.id)
    return kept.length === wanted.size && kept.every((b) => wanted.has(b.id)) && kept.length <= policy.keepDaily + policy.keepWeekly + 1
  }), { numRuns: 3000 })
  t.pass()
})

t.test('applying the rule again deletes nothing more', async (t) => {
  fc.assert(fc.property(backupsArb, policyArb, (backups, policy) => {
    const doomed = new Set(expiredBackups(backups, policy, NOW))
    return expiredBackups(backups.filter((b) => !doomed.has(b.id)), policy, NOW).length === 0
  }), { numRuns: 2000 })
  t.pass()
})

t.test('ISO weeks start on Monday; days are UTC', async (t) => {
  t.equal(weekOf(new Date('2026-11-23T00:00:00Z')), weekOf(new Date('2026-11-29T23:59:59Z')), 'Monday to Sunday')
  t.equal(weekOf(new Date('2026-11-22T23:59:59Z')) + 1, weekOf(new Date('2026-11-23T00:00:00Z')), 'Sunday, then Monday')
  t.equal(dayOf(new Date('2026-11-25T23:59:59Z')) + 1, dayOf(new Date('2026-11-26T00:00:00Z')))
  const backups: RetainedBackup[] = [
    { id: 1, kind: 'scheduled', state: 'completed', createdAt: new Date('2026-11-25T02:00:00Z') },
    { id: 2, kind: 'scheduled', state: 'completed', createdAt: new Date('2026-11-24T02:00:00Z') },
    { id: 3, kind: 'scheduled', state: 'completed', createdAt: new Date('2026-11-20T02:00:00Z') },
    { id: 4, kind: 'scheduled', state: 'failed', createdAt: new Date('2026-11-25T01:00:00Z') },
    { id: 5, kind: 'manual', state: 'completed', createdAt: new Date('2026-01-01T02:00:00Z') }
  ]
  t.same(expiredBackups(backups, { keepDaily: 1, keepWeekly: 2 }, NOW).sort(), [2, 4], 'today\'s, and last week\'s newest; a failed one goes')
  t.same(expiredBackups(backups, { keepDaily: 0, keepWeekly: 0 }, NOW).sort(), [2, 3, 4], 'nothing but the newest completed')
})
