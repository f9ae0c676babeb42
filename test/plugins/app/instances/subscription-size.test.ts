/**
 * What a tenant's subscription buys, as the tenant-wide ceiling (the Kubernetes quota) reads it,
 * against PostgreSQL: before any subscription the instances are not limited, so the ceiling
 * counts the ones the tenant holds; with one, the subscription's own numbers.
 */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { activeSubscription } from '../../../support/billing-fixtures.ts'
import { subscriptionSize, tenantQuota } from '../../../../plugins/app/instances/instance-resources.ts'

const { app } = await build(t)

t.test('before any subscription: small instances, as many as the tenant holds (at least one)', async (t) => {
  const admin = await signup(app)
  const size = () => subscriptionSize(app.orm.em.fork(), admin.user.tenant_id)
  t.same(await size(), { workers: 0, storageGb: 10, instances: 1 }, 'none held: room for the first')
  await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  await recordInstance(app, admin.user.tenant_id, { state: 'provisioning' })
  await recordInstance(app, admin.user.tenant_id, { state: 'stopped' })
  await recordInstance(app, admin.user.tenant_id, { state: 'deleted' })
  t.same(await size(), { workers: 0, storageGb: 10, instances: 3 }, 'a deleted instance holds nothing')
  t.match(tenantQuota(await size()), { instances: 3, memoryMb: 3 * 1024 }, 'the quota admits every one of them')
})

t.test('with a subscription: its own numbers, whatever the tenant holds', async (t) => {
  const admin = await signup(app)
  await activeSubscription(app, admin.user.tenant_id, { instances: 2, workers: 1 })
  for (let i = 0; i < 3; i++) await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  t.match(await subscriptionSize(app.orm.em.fork(), admin.user.tenant_id), { workers: 1, instances: 2 })
})
