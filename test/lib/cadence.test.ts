import t from 'tap'
import { cadenceOf } from '../../lib/cadence.ts'

t.test('intervals under a minute: a job every minute with passes inside it', async (t) => {
  t.same(cadenceOf(1), { cron: '* * * * *', passes: 60, intervalSeconds: 1 })
  t.same(cadenceOf(30), { cron: '* * * * *', passes: 2, intervalSeconds: 30 })
  t.same(cadenceOf(45), { cron: '* * * * *', passes: 2, intervalSeconds: 45 })
})

t.test('a minute or more: a cron in whole minutes, then hours', async (t) => {
  t.same([60, 89, 300, 420, 3600, 7200, 86_400].map((s) => cadenceOf(s).cron), ['* * * * *', '* * * * *', '*/5 * * * *', '*/7 * * * *', '0 * * * *', '0 */2 * * *', '0 0 * * *'])
  t.ok([60, 300, 86_400].every((s) => cadenceOf(s).passes === 1))
})

t.test('an interval that is not a whole number of seconds >= 1 is refused', async (t) => {
  t.throws(() => cadenceOf(0), /whole number/)
  t.throws(() => cadenceOf(1.5), /whole number/)
})
