import t from 'tap'
import fc from 'fast-check'
import { addBillingCycle } from '../../../../plugins/app/subscriptions/billing-cycle.ts'

const iso = (date: Date) => date.toISOString()

t.test('calendar months and years, clamped to the end of shorter months', async (t) => {
  t.equal(iso(addBillingCycle(new Date('2027-01-31T10:00:00Z'), 'monthly')), '2027-02-28T10:00:00.000Z')
  t.equal(iso(addBillingCycle(new Date('2028-01-31T10:00:00Z'), 'monthly')), '2028-02-29T10:00:00.000Z', 'leap year')
  t.equal(iso(addBillingCycle(new Date('2027-12-15T23:59:59.123Z'), 'monthly')), '2028-01-15T23:59:59.123Z', 'across the year end')
  t.equal(iso(addBillingCycle(new Date('2028-02-29T00:00:00Z'), 'yearly')), '2029-02-28T00:00:00.000Z')
  t.equal(iso(addBillingCycle(new Date('2027-03-31T08:00:00Z'), 'monthly')), '2027-04-30T08:00:00.000Z')
})

t.test('property: one cycle later, same time of day, the same day or the target month\'s last', async (t) => {
  const dates = fc.date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('2200-12-31T00:00:00Z'), noInvalidDate: true })
  fc.assert(fc.property(dates, fc.constantFrom('monthly' as const, 'yearly' as const), (start, cycle) => {
    const end = addBillingCycle(start, cycle)
    const months = (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth()
    const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate()
    return months === (cycle === 'yearly' ? 12 : 1) &&
      end.getUTCDate() === Math.min(start.getUTCDate(), lastDay) &&
      end.getTime() % 86_400_000 === start.getTime() % 86_400_000 &&
      end > start
  }), { numRuns: 2000 })
  t.pass('held for 2000 random dates')
})
