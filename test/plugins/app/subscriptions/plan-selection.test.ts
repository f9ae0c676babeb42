import t from 'tap'
import { assertQuantities, defaultQuantities, quantitiesFor } from '../../../../plugins/app/subscriptions/plan-selection.ts'
import type { Plan } from '../../../../plugins/app/plans/plan.entity.ts'
import type { PlanConfiguration } from '../../../../plugins/app/subscriptions/plan-configuration.entity.ts'

const plan = { id: 7, name: 'Business', includedUsers: 10, maxUsers: 50, maxInstances: 3, maxWorkers: 6 } as Plan
const ok = { users: 1, storage: 0, workers: 1, instances: 1 }

t.test('the service checks quantities itself (agents do not pass the HTTP schema)', async (t) => {
  t.doesNotThrow(() => assertQuantities(plan, ok))
  t.doesNotThrow(() => assertQuantities(plan, { users: 50, storage: 10_000, workers: 6, instances: 3 }))
  for (const [field, value, minimum] of [['users', 0, 1], ['storage', -1, 0], ['workers', 0, 1], ['instances', 0, 1], ['users', 1.5, 1], ['storage', Number.NaN, 0]] as const) {
    t.throws(() => assertQuantities(plan, { ...ok, [field]: value }), { code: 'PLAN_QUANTITY_INVALID', statusCode: 400, details: { field, minimum } }, `${field} = ${value}`)
  }
  t.throws(() => assertQuantities(plan, { ...ok, users: 51 }), { code: 'PLAN_LIMIT_EXCEEDED', details: { field: 'users', maximum: 50 } })
})

t.test('the stored configuration counts only for its own plan', async (t) => {
  t.same(defaultQuantities(plan), { users: 10, storage: 0, workers: 1, instances: 1 })
  t.same(defaultQuantities({ ...plan, includedUsers: 0 } as Plan).users, 1, 'at least one user')
  const configuration = { plan: { id: 7 }, users: 12, storage: 5, workers: 2, instances: 2 } as PlanConfiguration
  t.same(quantitiesFor(plan, configuration), { users: 12, storage: 5, workers: 2, instances: 2 })
  t.same(quantitiesFor({ ...plan, id: 8 } as Plan, configuration), defaultQuantities(plan))
  t.same(quantitiesFor(plan, null), defaultQuantities(plan))
})
