/**
 * A slow module install and a re-invite against the contract double of Odoo on the real engine.
 * As real Odoo (account: 2 min 26 s, of which 48 s of registry reload answering nothing), the
 * install outlasts a call's bound and the ERP fails its health check while it reloads: the job
 * decides by the module's state read back, so it is installed on its first attempt, and the
 * reconciler leaves the instance running meanwhile. The install gives its app's groups to every
 * internal user; a re-invite changes only the role's groups, so they keep them.
 */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { addMember, bearer, signup } from '../../../support/accounts.ts'
import { execIn, requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { waitFor } from '../../../support/invitations-flow.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { contract, erpDoubleImage } from '../../../support/erp-double/image.ts'
import { callOdoo } from '../../../../provisioning/erp/odoo-rpc.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { ERP_USER_QUEUE } from '../../../../plugins/app/erp/erp-user.queue.ts'

const docker = await requireDockerOrSkipLoudly(t)

docker.test('a slow install is installed on its first attempt, the instance stays running; a re-invite keeps the groups the ERP gave', async (t) => {
  const image = await erpDoubleImage()
  const env = dockerInstanceEnv(t, {
    ERP_IMAGE: image.replace(/:[^:]+$/, ':{version}'),
    // One second per check: an ERP that answers nothing is unhealthy within seconds, as a real one is within its reload.
    ERP_HEALTHCHECK: 'timeout 1 wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1',
    ERP_CALL_TIMEOUT_SECONDS: 2,
    ERP_INSTALL_TIMEOUT_SECONDS: 60
  })
  const { app, databaseUrl } = await build(t, { env })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('install')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Production', subdomain, erp_version: contract.response.version.server_version, backend: 'docker' }
  })
  t.equal(created.statusCode, 202, created.body)
  const { id } = created.json().instance
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  const uid = await instanceUid(app, id)
  const database = erpDatabaseNames(uid).database
  const container = docker.docker.getContainer(`erp-${subdomain}`)
  const endpoint = `http://${(await container.inspect()).NetworkSettings.Networks.bridge?.IPAddress ?? ''}:8069`
  const secrets = await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid })
  const groupsOf = async (login: string): Promise<number[]> => {
    const [row] = await callOdoo({ endpoint, timeoutMs: 5000 }, 'object', 'execute_kw', [database, 2, secrets?.adminPassword, 'res.users', 'search_read', [[['login', '=', login]]], { fields: ['groups_id'] }]) as Array<{ groups_id: number[] }>
    return row?.groups_id ?? []
  }
  const groupId = (xmlId: string): number => contract.initialDatabase.groups.find((g) => g.xml_id === xmlId)?.id ?? 0

  // A member of the company becomes an ERP administrator.
  const member = await addMember(app, admin.user.tenant_id, { role: 'user' })
  const invite = async (role: 'admin' | 'user'): Promise<void> => {
    const response = await app.inject({ method: 'POST', url: `/api/instances/${id}/users/invite`, headers: bearer(admin.token), payload: { email: member.email, name: 'Ignored', role } })
    t.equal(response.statusCode, 202, response.body)
  }
  await invite('admin')
  await waitFor(async () => { await app.jobs.drain(ERP_USER_QUEUE); return (await groupsOf(member.email)).includes(groupId('base.group_system')) || undefined }, 30_000, 'the member\'s ERP user')

  // The ERP's install of account takes 12 s, the last 10 of which answer nothing (scaled down from real Odoo).
  await execIn(container, ['sh', '-c', 'echo \'{"installSeconds": 12, "reloadSeconds": 10}\' > /var/lib/odoo/erp-double/timing.json'])
  const catalog = (await app.inject({ method: 'GET', url: '/api/modules' })).json().modules as Array<{ id: number, technical_name: string }>
  const assigned = await app.inject({ method: 'POST', url: `/api/instances/${id}/modules`, headers: bearer(admin.token), payload: { module_id: catalog.find((m) => m.technical_name === 'account')?.id } })
  t.equal(assigned.statusCode, 202, assigned.body)
  await waitFor(async () => (await container.inspect()).State.Health?.Status === 'unhealthy' || undefined, 30_000, 'the ERP to fail its health check while it reloads')
  const round = await app.instances.reconcileNow()
  t.match(round, { checked: 1, corrected: 0 }, 'the reconciler sees it failing and corrects nothing: the install is ours')
  const during = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.equal(during.state, 'running', 'still running while the ERP reloads')

  const settled = await waitFor(async () => {
    const [row] = await app.sql<{ state: string, error: string | null }>({ text: 'SELECT state, error FROM instance_modules WHERE instance_id = $1', values: [id] })
    return row?.state === 'installed' || row?.state === 'failed' ? row : undefined
  }, 60_000, 'the install to settle')
  t.same(settled, { state: 'installed', error: null }, 'installed, though its call got no answer within ERP_CALL_TIMEOUT_SECONDS')
  const retried = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE type = 'instance_module.installed' AND instance_id = $1", values: [id] })
  t.equal(retried[0]?.n, 1, 'one install recorded')
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')

  // The install gave the app's groups to every internal user; a re-invite as user changes only the role's groups.
  const appGroups = contract.initialDatabase.modules.find((m) => m.name === 'account')?.groups.filter((g) => g.defaultUser).map((g) => g.id) ?? []
  const before = await groupsOf(member.email)
  t.ok(appGroups.length > 0 && appGroups.every((g) => before.includes(g)), 'the install added its groups to the member')
  await invite('user')
  const after = await waitFor(async () => {
    await app.jobs.drain(ERP_USER_QUEUE)
    const groups = await groupsOf(member.email)
    return groups.includes(groupId('base.group_system')) ? undefined : groups
  }, 30_000, 'the member\'s new role')
  const dropped = [groupId('base.group_system'), groupId('base.group_erp_manager')]
  t.same(after.toSorted((a, b) => a - b), before.filter((g) => !dropped.includes(g)).toSorted((a, b) => a - b),
    'only the groups the admin role means are gone; the app\'s groups and the template\'s stay')
  t.ok(after.includes(groupId('base.group_user')), 'an internal user still')
})
