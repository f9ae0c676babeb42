/**
 * The contract double of Odoo's external API, in the image the adapter tests run: it fails where
 * real Odoo 17 fails (an uninitialised database answers HTML 500 pages, installs take time and the
 * reload answers nothing, groups imply groups, new users come from a template, logins cool down),
 * a new database knows only admin/admin, passwords are checked, its state is on the data volume.
 */
import t from 'tap'
import type Docker from 'dockerode'
import { callOdoo, ErpDatabaseNotInitialised } from '../../../provisioning/erp/odoo-rpc.ts'
import { cleanupContainers, newTestRun, requireDockerOrSkipLoudly } from '../docker/engine.ts'
import { removeVolumes } from '../../provisioning/docker/helpers.ts'
import { contract, erpDoubleImage, faultMessage } from './image.ts'

const engine = await requireDockerOrSkipLoudly(t)
const run = newTestRun()
t.teardown(async () => {
  if (!engine.available) return
  await cleanupContainers(run.label)
  await removeVolumes(run.label)
})

async function containerOn (volume: string, cmd: string[], env: string[] = []): Promise<Docker.Container> {
  return engine.docker.createContainer({
    Image: await erpDoubleImage(),
    Cmd: cmd,
    Env: env,
    Labels: run.labels,
    HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/var/lib/odoo' }] }
  })
}

async function endpointOf (container: Docker.Container): Promise<string> {
  const info = await container.inspect()
  return `http://${info.NetworkSettings.Networks.bridge?.IPAddress ?? ''}:8069`
}

async function health (endpoint: string, timeoutMs = 1000): Promise<number | 'no answer'> {
  try {
    const response = await fetch(`${endpoint}/web/health`, { signal: AbortSignal.timeout(timeoutMs) })
    await response.arrayBuffer()
    return response.status
  } catch {
    return 'no answer'
  }
}

async function waitForVersion (endpoint: string): Promise<unknown> {
  const deadline = Date.now() + 15_000
  while (true) {
    try {
      return await callOdoo({ endpoint, timeoutMs: 2000 }, 'common', 'version', [])
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

engine.test('an uninitialised database answers HTML 500 pages; -i base takes time and makes admin/admin; the state outlives the container', async (t) => {
  const volume = `erp-double-${run.id}`
  await engine.docker.createVolume({ Name: volume, Labels: run.labels })
  const db = 'erp_probe'
  const server = await containerOn(volume, ['odoo', '-d', db], ['ERP_DOUBLE_INSTALL_SECONDS=3', 'ERP_DOUBLE_RELOAD_SECONDS=2'])
  await server.start()
  const endpoint = await endpointOf(server)
  const target = { endpoint, timeoutMs: 5000 }
  const deadline = Date.now() + 15_000
  while (await health(endpoint) === 'no answer' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await health(endpoint), 500, '/web/health is 500 while the configured database is not initialised')
  await t.rejects(callOdoo(target, 'common', 'version', []), ErpDatabaseNotInitialised, 'even common.version is an HTML 500 page')
  await t.rejects(callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), ErpDatabaseNotInitialised, 'authenticate too')

  const init = await containerOn(volume, ['odoo', '-d', db, '-i', 'base', '--without-demo=all', '--stop-after-init'])
  const started = Date.now()
  await init.start()
  t.equal((await init.wait()).StatusCode, 0, 'the initialisation exits 0')
  t.ok(Date.now() - started >= contract.timing.initSeconds * 1000, `-i base takes its time (${Date.now() - started} ms)`)
  t.equal(await health(endpoint), 200, 'healthy once initialised')
  t.same(await callOdoo(target, 'common', 'version', []), contract.response.version, 'common.version as the fixture says')
  await t.rejects(callOdoo(target, 'common', 'authenticate', ['elsewhere', 'admin', 'admin', {}]),
    { faultName: 'psycopg2.OperationalError', message: faultMessage('unknownDatabase', { db: 'elsewhere' }) }, 'a database that does not exist')

  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), contract.initialDatabase.adminUid, 'admin/admin is uid 2')
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'anything', {}]), false, 'a wrong password is false, not a fault')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, 2, 'wrong', 'res.users', 'search_read', [[]], {}]),
    { faultName: contract.fault.accessDenied?.name, message: faultMessage('accessDenied') }, 'execute_kw checks the password')
  t.equal(await callOdoo(target, 'object', 'execute_kw', [db, 2, 'admin', 'ir.config_parameter', 'get_param', ['web.base.url']]), 'http://localhost:8069', 'web.base.url until set')

  const execute = async (password: string, model: string, method: string, args: unknown[], kwargs: Record<string, unknown> = {}): Promise<unknown> =>
    await callOdoo(target, 'object', 'execute_kw', [db, 2, password, model, method, args, kwargs])
  const groupsOf = async (id: number): Promise<number[] | undefined> =>
    (await execute('s3cret', 'res.users', 'read', [[id]], { fields: ['groups_id'] }) as Array<{ groups_id: number[] }>)[0]?.groups_id.toSorted((a, b) => a - b)
  const groupId = (xmlId: string): number => contract.initialDatabase.groups.find((g) => g.xml_id === xmlId)?.id ?? 0
  t.equal(await execute('admin', 'res.users', 'write', [[2], { password: 's3cret' }]), true)
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), false, 'the default password is gone')
  const ann = await execute('s3cret', 'res.users', 'create', [{ login: 'ann@example.com', name: 'Ann', email: 'ann@example.com', password: 'p', groups_id: [[6, 0, [1, 10]], [3, 10], [4, 2]] }]) as number
  t.same(await groupsOf(ann), [1, 2, groupId('base.group_no_one')], '(6,0,ids) replaces, (3,id) removes, (4,id) adds; Access Rights implies Internal User, which implies Technical Features')
  t.notOk((await groupsOf(ann))?.includes(groupId('base.group_partner_manager')), 'created with groups: none of the default user template\'s')
  const bob = await execute('s3cret', 'res.users', 'create', [{ login: 'bob@example.com', name: 'Bob' }]) as number
  const template = contract.initialDatabase.users.find((u) => u.xml_id === contract.initialDatabase.defaultUserXmlId)
  t.same(await groupsOf(bob), template?.groups_id, 'created without groups: the default user template\'s (Contact Creation, Access to export)')
  await t.rejects(execute('s3cret', 'res.users', 'write', [[bob], { groups_id: [[4, groupId('base.group_portal')]] }]),
    { message: faultMessage('multipleUserTypes') }, 'an internal user cannot be a portal user too')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, ann, 'p', 'res.users', 'write', [[2], { password: 'x' }]]),
    { faultName: 'odoo.exceptions.AccessError', message: /not allowed to modify 'res.users'/ }, 'a plain user cannot change the administrator')

  const missing = contract.initialDatabase.modules.find((m) => m.name === 'sale_management')
  await t.rejects(execute('s3cret', 'ir.module.module', 'button_immediate_install', [[missing?.id]]),
    { message: faultMessage('missingDependency', { module: 'sale_management', dependency: 'sale' }) }, 'a missing dependency fails as Odoo says it, at once')
  const account = contract.initialDatabase.modules.find((m) => m.name === 'account')
  const installStarted = Date.now()
  const install = execute('s3cret', 'ir.module.module', 'button_immediate_install', [[account?.id]])
  await new Promise((resolve) => setTimeout(resolve, 300))
  const during = await execute('s3cret', 'ir.module.module', 'search_read', [[['name', 'in', ['account', 'mail']]]], { fields: ['name', 'state'] }) as Array<{ name: string, state: string }>
  t.same(during.map((m) => m.state), ['to install', 'to install'], 'while it installs, the module and its dependency are `to install`')
  while (Date.now() - installStarted < 1500) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(await health(endpoint, 500), 'no answer', 'while the registry reloads, nothing answers, the health check included')
  t.same(await install, { type: 'ir.actions.client', tag: 'reload' })
  t.ok(Date.now() - installStarted >= 3000, `the install took its time (${Date.now() - installStarted} ms)`)
  t.equal(await health(endpoint), 200, 'healthy again after the reload')
  const installed = await execute('s3cret', 'ir.module.module', 'search_read', [[['state', '=', 'installed']]], { fields: ['name'] }) as Array<{ name: string }>
  t.same(installed.map((m) => m.name).sort(), ['account', 'base', 'mail', 'web'], 'dependencies are installed first')
  const billing = account?.groups.filter((g) => g.defaultUser).map((g) => g.id) ?? []
  for (const [who, id] of [['the administrator', 2], ['an internal user', ann], ['a user from the template', bob]] as const) {
    const has = await groupsOf(id) ?? []
    t.ok(billing.length > 0 && billing.every((g) => has.includes(g)), `the install gave ${who} the app's groups`)
  }

  for (let i = 0; i < contract.loginCooldown.after; i++) await callOdoo(target, 'common', 'authenticate', [db, 'admin', `wrong-${i}`, {}])
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 's3cret', {}]), false, `after ${contract.loginCooldown.after} failures from one address, even the right password is refused`)

  await server.stop({ t: 5 })
  t.equal((await server.inspect()).State.ExitCode, 0, 'exits 0 on SIGTERM')
  await server.start()
  const again = { endpoint: await endpointOf(server), timeoutMs: 5000 }
  await waitForVersion(again.endpoint)
  t.equal(await callOdoo(again, 'common', 'authenticate', [db, 'admin', 's3cret', {}]), 2, 'the password survived the restart (and the failures count did not)')
})

engine.test('with list_db = False the db service answers AccessDenied and the manager page says it is disabled', async (t) => {
  const volume = `erp-double-nolist-${run.id}`
  await engine.docker.createVolume({ Name: volume, Labels: run.labels })
  const server = await containerOn(volume, ['odoo', '--no-database-list'])
  await server.start()
  const endpoint = await endpointOf(server)
  await waitForVersion(endpoint)
  await t.rejects(callOdoo({ endpoint, timeoutMs: 5000 }, 'db', 'list', []), { faultName: 'odoo.exceptions.AccessDenied', message: faultMessage('databaseManagerDisabled') })
  const page = await fetch(`${endpoint}/web/database/manager`)
  t.match(await page.text(), contract.server.databaseManagerDisabled)
})
