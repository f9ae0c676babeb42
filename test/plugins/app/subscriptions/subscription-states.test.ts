import t from 'tap'
import { ALL_STATES, TRANSITIONS, assertTransition, canTransition } from '../../../../plugins/app/subscriptions/subscription-states.ts'
import { SUBSCRIPTION_STATUSES } from '../../../../plugins/app/subscriptions/subscription.entity.ts'

/** The documented table (docs/billing.md), written out independently of the module under test. */
const DOCUMENTED: Record<string, string[]> = {
  none: ['trialing', 'pending_payment', 'active'],
  trialing: ['pending_payment', 'active', 'expired', 'cancelled'],
  pending_payment: ['active', 'pending_payment', 'cancelled'],
  active: ['pending_payment', 'past_due', 'cancelled', 'active'],
  past_due: ['active', 'expired', 'cancelled'],
  expired: ['pending_payment', 'active'],
  cancelled: ['pending_payment', 'active']
}

t.test('the table is the documented one and covers every status', async (t) => {
  t.same(Object.keys(TRANSITIONS).sort(), ['none', ...SUBSCRIPTION_STATUSES].sort())
  for (const [from, targets] of Object.entries(DOCUMENTED)) t.same([...TRANSITIONS[from as keyof typeof TRANSITIONS]].sort(), [...targets].sort(), from)
})

t.test('every (from, to) pair is either allowed or a 409 naming both states', async (t) => {
  let allowed = 0
  let refused = 0
  for (const from of ALL_STATES) {
    for (const to of SUBSCRIPTION_STATUSES) {
      const label = `${from ?? 'none'} -> ${to}`
      if (DOCUMENTED[from ?? 'none']?.includes(to)) {
        t.ok(canTransition(from, to), label)
        t.doesNotThrow(() => assertTransition(from, to), label)
        allowed++
        continue
      }
      t.notOk(canTransition(from, to), label)
      try {
        assertTransition(from, to)
        t.fail(`${label} should throw`)
      } catch (error) {
        const e = error as { statusCode: number, code: string, message: string, details: { from: string, to: string } }
        t.equal(e.statusCode, 409, label)
        t.equal(e.code, 'SUBSCRIPTION_TRANSITION_INVALID', label)
        t.same({ from: e.details.from, to: e.details.to }, { from: from ?? 'none', to }, label)
        t.match(e.message, to, label)
        if (from !== null) t.match(e.message, from, label)
        refused++
      }
    }
  }
  t.equal(allowed + refused, 7 * 6, 'all 42 pairs checked')
  t.equal(allowed, 21, '21 allowed, 21 refused')
})
