/**
 * The contract double of Odoo's external API, in the image the adapter tests run: as strict as
 * Odoo where the control plane depends on it (an uninitialised database fails every call, a new
 * one knows only admin/admin, passwords are checked), with its state on the data volume.
 */
import t from 'tap'
import type Docker from 'dockerode'
import { callOdoo, ErpFault } from '../../../provisioning/erp/odoo-rpc.ts'
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

async function containerOn (volume: string, cmd: string[]): Promise<Docker.Container> {
  return engine.docker.createContainer({
    Image: await erpDoubleImage(),
    Cmd: cmd,
    Labels: run.labels,
    HostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/var/lib/odoo' }] }
  })
}

async function endpointOf (container: Docker.Container): Promise<string> {
  const info = await container.inspect()
  return `http://${info.NetworkSettings.Networks.bridge?.IPAddress ?? ''}:8069`
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

engine.test('an uninitialised database fails every call; -i base --stop-after-init makes admin/admin; the state outlives the container', async (t) => {
  const volume = `erp-double-${run.id}`
  await engine.docker.createVolume({ Name: volume, Labels: run.labels })
  const db = 'erp_probe'
  const server = await containerOn(volume, ['odoo', '-d', db])
  await server.start()
  const endpoint = await endpointOf(server)
  const target = { endpoint, timeoutMs: 5000 }
  t.same(await waitForVersion(endpoint), contract.response.version, 'common.version as the fixture says')

  await t.rejects(callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]),
    new ErpFault('odoo.exceptions.UserError', faultMessage('notInitialised', { db })), 'authenticate on an uninitialised database')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, 2, 'admin', 'res.users', 'search_read', [[]], {}]),
    { faultName: 'odoo.exceptions.UserError', message: faultMessage('notInitialised', { db }) }, 'execute_kw too')
  await t.rejects(callOdoo(target, 'common', 'authenticate', ['elsewhere', 'admin', 'admin', {}]),
    { faultName: 'psycopg2.OperationalError', message: faultMessage('unknownDatabase', { db: 'elsewhere' }) }, 'a database that does not exist')

  const init = await containerOn(volume, ['odoo', '-d', db, '-i', 'base', '--without-demo=all', '--stop-after-init'])
  await init.start()
  t.equal((await init.wait()).StatusCode, 0, 'the initialisation exits 0')

  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), contract.initialDatabase.adminUid, 'admin/admin is uid 2')
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'anything', {}]), false, 'a wrong password is false, not a fault')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, 2, 'wrong', 'res.users', 'search_read', [[]], {}]),
    { faultName: contract.fault.accessDenied?.name, message: faultMessage('accessDenied') }, 'execute_kw checks the password')

  t.equal(await callOdoo(target, 'object', 'execute_kw', [db, 2, 'admin', 'res.users', 'write', [[2], { password: 's3cret' }]]), true)
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), false, 'the default password is gone')
  const created = await callOdoo(target, 'object', 'execute_kw', [db, 2, 's3cret', 'res.users', 'create', [{ login: 'ann@example.com', name: 'Ann', email: 'ann@example.com', password: 'p', groups_id: [[6, 0, [1, 10]], [3, 10], [4, 2]] }]])
  t.type(created, 'number')
  const [ann] = await callOdoo(target, 'object', 'execute_kw', [db, 2, 's3cret', 'res.users', 'read', [[created]], { fields: ['login', 'groups_id'] }]) as Array<{ groups_id: number[] }>
  t.same(ann?.groups_id, [1, 2], 'many2many commands: (6,0,ids) replaces, (3,id) removes, (4,id) adds')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, created, 'p', 'res.users', 'write', [[2], { password: 'x' }]]),
    { faultName: 'odoo.exceptions.AccessError', message: /not allowed to modify 'res.users'/ }, 'a plain user cannot change the administrator')

  const missing = contract.initialDatabase.modules.find((m) => m.name === 'sale_management')
  await t.rejects(callOdoo(target, 'object', 'execute_kw', [db, 2, 's3cret', 'ir.module.module', 'button_immediate_install', [[missing?.id]]]),
    { message: faultMessage('missingDependency', { module: 'sale_management', dependency: 'sale' }) }, 'a missing dependency fails as Odoo says it')
  const contacts = contract.initialDatabase.modules.find((m) => m.name === 'contacts')
  await callOdoo(target, 'object', 'execute_kw', [db, 2, 's3cret', 'ir.module.module', 'button_immediate_install', [[contacts?.id]]])
  const installed = await callOdoo(target, 'object', 'execute_kw', [db, 2, 's3cret', 'ir.module.module', 'search_read', [[['state', '=', 'installed']]], { fields: ['name'] }]) as Array<{ name: string }>
  t.same(installed.map((m) => m.name).sort(), ['base', 'contacts', 'mail', 'web'], 'dependencies are installed first')

  await server.stop({ t: 5 })
  t.equal((await server.inspect()).State.ExitCode, 0, 'exits 0 on SIGTERM')
  await server.start()
  const again = { endpoint: await endpointOf(server), timeoutMs: 5000 }
  await waitForVersion(again.endpoint)
  t.equal(await callOdoo(again, 'common', 'authenticate', [db, 'admin', 's3cret', {}]), 2, 'the password survived the restart')
})
