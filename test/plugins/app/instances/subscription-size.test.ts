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

t.test('with a subscription whose plan lets staging copies take no slot: room for the copies it holds too', async (t) => {
  const admin = await signup(app)
  await activeSubscription(app, admin.user.tenant_id, { instances: 2, workers: 1 })
  const size = async () => (await subscriptionSize(app.orm.em.fork(), admin.user.tenant_id)).instances
  const copy = await recordInstance(app, admin.user.tenant_id, { state: 'running' })
  await app.sql({ text: `UPDATE instances SET kind = 'staging' WHERE id = $1`, values: [copy] })
  t.equal(await size(), 2, 'a plan that counts copies: its own number')
  await app.sql({ text: 'UPDATE plans SET staging_counts_in_limit = false WHERE id = (SELECT plan_id FROM subscriptions WHERE tenant_id = $1)', values: [admin.user.tenant_id] })
  t.equal(await size(), 3, 'one more for the copy')
  await app.sql({ text: `UPDATE instances SET state = 'deleted' WHERE id = $1`, values: [copy] })
  t.equal(await size(), 2, 'a deleted copy holds nothing')
  await app.sql({ text: 'UPDATE plans SET staging_counts_in_limit = true WHERE id = (SELECT plan_id FROM subscriptions WHERE tenant_id = $1)', values: [admin.user.tenant_id] })
})
