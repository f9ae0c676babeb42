/**
 * What an upgrade request refuses, before anything is recorded or queued (the whole app on the fake
 * Kubernetes API server, whose Jobs nobody ends here): another company's or an unknown instance, a
 * member, a target that skips a major version, is not newer, is not offered, or has no command
 * configured, an instance that is not running or stopped, a second test while one is under way.
 */
import t from 'tap'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { kubeApp } from '../../../support/kube-backups.ts'

const COMMANDS = JSON.stringify({
  '18.0': { image: 'registry.example/erp-upgrade:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init'] },
  '19.0': { image: 'registry.example/erp-upgrade:{version}', command: ['odoo', '-d', '{database}', '-u', 'all', '--stop-after-init'] }
})

const counts = async (app: Awaited<ReturnType<typeof kubeApp>>['app']) => {
  const [row] = await app.sql<{ upgrades: number, instances: number, backups: number, jobs: number, states: string }>({
    text: `SELECT (SELECT count(*) FROM instance_upgrades)::int AS upgrades, (SELECT count(*) FROM instances)::int AS instances, (SELECT count(*) FROM backups)::int AS backups,
      (SELECT count(*) FROM pgboss.job WHERE name IN ('instance-upgrades', 'instance-backups'))::int AS jobs, (SELECT string_agg(state || ':' || erp_version, ',' ORDER BY id) FROM instances) AS states`,
    values: []
  })
  return row
}

t.test('refusals change nothing', async (t) => {
  const context = await kubeApp(t, { env: { ERP_VERSIONS: '16.0,17.0,18.0,19.0,20.0', ERP_UPGRADE_COMMANDS: JSON.stringify({ '19.0': JSON.parse(COMMANDS)['19.0'], '20.0': JSON.parse(COMMANDS)['19.0'] }) } })
  const { app, admin, id } = context
  const post = (instanceId: number, payload: Record<string, unknown>, token = admin.token) =>
    app.inject({ method: 'POST', url: `/api/instances/${instanceId}/upgrade`, headers: bearer(token), payload })
  const before = await counts(app)

  const stranger = await signup(app)
  const foreign = await post(id, { target_version: '18.0', mode: 'apply' }, stranger.token)
  t.equal(foreign.statusCode, 404)
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND', 'another company\'s instance')
  t.equal((await post(987654, { target_version: '18.0', mode: 'apply' })).json().error.code, 'INSTANCE_NOT_FOUND', 'an unknown instance')
  const member = await addMember(app, admin.user.tenant_id)
  const byMember = await post(id, { target_version: '18.0', mode: 'test' }, member.token)
  t.equal(byMember.statusCode, 403)
  t.equal(byMember.json().error.code, 'FORBIDDEN', 'admins only')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}/upgrades`, headers: bearer(member.token) })).statusCode, 200, 'members read the upgrades')

  const skip = await post(id, { target_version: '19.0', mode: 'apply' })
  t.equal(skip.statusCode, 409)
  t.equal(skip.json().error.code, 'UPGRADE_SKIPS_A_VERSION', 'one major version at a time')
  t.match(skip.json().error, { message: /upgrade to 18\.0 first/, details: { from_version: '17.0', next_version: '18.0' } })
  t.equal((await post(id, { target_version: '16.0', mode: 'apply' })).json().error.code, 'UPGRADE_NOT_NEWER', 'a downgrade')
  t.equal((await post(id, { target_version: '17.0', mode: 'test' })).json().error.code, 'UPGRADE_NOT_NEWER', 'the same version')
  t.equal((await post(id, { target_version: '21.0', mode: 'apply' })).json().error.code, 'UPGRADE_VERSION_NOT_OFFERED', 'a version the service does not offer')
  const notConfigured = await post(id, { target_version: '18.0', mode: 'apply' })
  t.equal(notConfigured.statusCode, 409)
  t.equal(notConfigured.json().error.code, 'UPGRADE_NOT_CONFIGURED', 'no command for 18.0')
  t.equal((await post(id, { target_version: '18.0', mode: 'later' })).statusCode, 400, 'an unknown mode')
  t.equal((await post(id, { target_version: 'latest', mode: 'apply' })).statusCode, 400, 'not a version')

  for (const state of ['restoring', 'provisioning', 'upgrading', 'error']) {
    await app.sql({ text: 'UPDATE instances SET state = $2 WHERE id = $1', values: [id, state] })
    const busy = await post(id, { target_version: '18.0', mode: 'apply' })
    t.equal(busy.statusCode, 409)
    // The version rules come first: a target that could never be upgraded to says so whatever the state.
    t.equal(busy.json().error.code, 'UPGRADE_NOT_CONFIGURED')
  }
  await app.sql({ text: "UPDATE instances SET state = 'running' WHERE id = $1", values: [id] })
  t.same(await counts(app), before, 'nothing recorded, queued or changed by a refusal')
})

t.test('an instance at work is busy; a second upgrade while one is under way is refused', async (t) => {
  const context = await kubeApp(t, { env: { ERP_UPGRADE_COMMANDS: COMMANDS } })
  const { app, admin, id } = context
  const post = (payload: Record<string, unknown>) => app.inject({ method: 'POST', url: `/api/instances/${id}/upgrade`, headers: bearer(admin.token), payload })
  for (const state of ['restoring', 'provisioning', 'upgrading', 'starting']) {
    await app.sql({ text: 'UPDATE instances SET state = $2 WHERE id = $1', values: [id, state] })
    const busy = await post({ target_version: '18.0', mode: 'apply' })
    t.equal(busy.statusCode, 409)
    t.equal(busy.json().error.code, 'INSTANCE_BUSY', `${state}: busy`)
  }
  await app.sql({ text: "UPDATE instances SET state = 'running' WHERE id = $1", values: [id] })
  const before = await counts(app)
  const first = await post({ target_version: '18.0', mode: 'test' })
  t.equal(first.statusCode, 202, first.body)
  const second = await post({ target_version: '18.0', mode: 'apply' })
  t.equal(second.statusCode, 409)
  t.equal(second.json().error.code, 'UPGRADE_IN_PROGRESS', 'one upgrade of an instance at a time')
  const after = await counts(app)
  t.equal(after?.upgrades, (before?.upgrades ?? 0) + 1, 'only the first was recorded')
  const missing = await app.inject({ method: 'GET', url: `/api/instances/${id}/upgrades/987654`, headers: bearer(admin.token) })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'UPGRADE_NOT_FOUND')
  const stranger = await signup(app)
  const foreign = await app.inject({ method: 'GET', url: `/api/instances/${id}/upgrades/${first.json().upgrade.id}`, headers: bearer(stranger.token) })
  t.equal(foreign.json().error.code, 'INSTANCE_NOT_FOUND', 'another company\'s upgrade')
})
