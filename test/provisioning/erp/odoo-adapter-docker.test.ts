/**
 * The ERP adapter against the contract double of Odoo on the real Docker engine: the first start
 * initialises the database (one-off container), the server gets its odoo.conf with the generated
 * master password and no database manager, and the adapter replaces admin/admin by the generated
 * administrator password, then lists users with it.
 */
import t from 'tap'
import { callOdoo } from '../../../provisioning/erp/odoo-rpc.ts'
import { createOdooAdapter, ODOO_ADMIN } from '../../../provisioning/erp/odoo-adapter.ts'
import { generateErpPassword } from '../../../plugins/app/instances/erp-credentials.ts'
import { execIn, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { contract, erpDoubleImage } from '../../support/erp-double/image.ts'
import { dockerFixture, tenantName, waitForState } from '../docker/helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fixture = await dockerFixture(t, engine.available)
const DOUBLE_HEALTH_CHECK = { command: ['CMD-SHELL', 'wget -q -O /dev/null http://127.0.0.1:8069/web/health || exit 1'], intervalMs: 250, timeoutMs: 2000, retries: 2 }

engine.test('first start: initialised once, configured, the default admin password replaced; users listed with the generated one', async (t) => {
  const backend = fixture.backend({ imageTemplate: await erpDoubleImage(), healthCheck: DOUBLE_HEALTH_CHECK })
  const masterPassword = generateErpPassword()
  const adminPassword = generateErpPassword()
  const spec = fixture.spec(tenantName(), {
    database: { host: 'db.internal', port: 5432, name: 'erp_first_start', user: 'erp_user', password: 'db-pass' },
    erp: { masterPassword, initialise: true }
  })
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const endpoint = await backend.erpEndpoint?.(spec)
  t.match(endpoint, /^http:\/\/\d+\.\d+\.\d+\.\d+:8069$/, 'the container\'s address on its network, not a published port')
  const target = { endpoint: endpoint ?? '', timeoutMs: 5000 }
  const db = spec.database.name
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), ODOO_ADMIN.uid, 'the initialised database knows admin/admin only')

  const container = engine.docker.getContainer(`erp-${spec.subdomain}`)
  const config = await execIn(container, ['cat', '/etc/odoo/odoo.conf'])
  t.match(config.stdout, `admin_passwd = ${masterPassword}\n`, 'the generated master password is in the server\'s configuration')
  t.match(config.stdout, 'list_db = False\n', 'no database manager')
  t.match(config.stdout, `dbfilter = ^${db}$\n`, 'this instance\'s database only')
  const manager = await execIn(container, ['sh', '-c', 'wget -q -O - http://127.0.0.1:8069/web/database/manager'])
  t.match(manager.stdout, contract.server.databaseManagerDisabled, 'the manager page says it is disabled')
  await t.rejects(callOdoo(target, 'db', 'list', []), { message: contract.fault.databaseManagerDisabled?.message ?? '' }, 'the db service is closed too')
  const inits = (await engine.docker.listContainers({ all: true, filters: { label: [`erp.instance-id=${spec.instanceUid}`] } })).map((c) => c.Names[0])
  t.same(inits, [`/erp-${spec.subdomain}`], 'the one-off initialisation container is gone')

  const adapter = createOdooAdapter({ ...target, database: db, adminPassword })
  await adapter.setAdminPassword()
  const users = await adapter.listUsers()
  t.same(users.map((u) => u.login), ['admin'], 'the adapter lists the users with the generated password')
  t.equal(await callOdoo(target, 'common', 'authenticate', [db, 'admin', 'admin', {}]), false, 'admin/admin no longer works')
  await adapter.setAdminPassword()
  await adapter.checkAdmin()
  t.pass('setting it again is a no-op; the check passes')

  const url = `https://${spec.host}`
  t.equal(await adapter.setBaseUrl(url), contract.server.defaultConfigParameters['web.base.url'], 'web.base.url was Odoo\'s default until set')
  t.equal(await callOdoo(target, 'object', 'execute_kw', [db, 2, adminPassword, 'ir.config_parameter', 'get_param', ['web.base.url']]), url, 'set to the instance\'s address')
  const template = contract.initialDatabase.users.find((u) => u.xml_id === contract.initialDatabase.defaultUserXmlId)
  t.same(await adapter.defaultUserGroupIds(), template?.groups_id, 'the default user template\'s groups')
})

engine.test('a later provision with initialise=false keeps the database; admin/admin answering again is reported', async (t) => {
  const backend = fixture.backend({ imageTemplate: await erpDoubleImage(), healthCheck: DOUBLE_HEALTH_CHECK })
  const spec = fixture.spec(tenantName(), {
    database: { host: 'db.internal', port: 5432, name: 'erp_later', user: 'erp_user', password: 'db-pass' },
    erp: { masterPassword: generateErpPassword(), initialise: true }
  })
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const endpoint = await backend.erpEndpoint?.(spec) ?? ''
  const adapter = createOdooAdapter({ endpoint, timeoutMs: 5000, database: spec.database.name, adminPassword: 'generated-1' })
  await adapter.setAdminPassword()
  await backend.restart({ ...spec, erp: { masterPassword: spec.erp?.masterPassword ?? '', initialise: false } })
  await waitForState(backend, spec, 'running')
  const again = createOdooAdapter({ endpoint: await backend.erpEndpoint?.(spec) ?? '', timeoutMs: 5000, database: spec.database.name, adminPassword: 'generated-1' })
  await waitForErp(again)
  t.equal((await again.listUsers()).length, 1, 'the database and its password outlived the restart')

  // Someone put the default password back (a reset database): the check names it.
  await callOdoo({ endpoint: await backend.erpEndpoint?.(spec) ?? '', timeoutMs: 5000 }, 'object', 'execute_kw', [spec.database.name, 2, 'generated-1', 'res.users', 'write', [[2], { password: 'admin' }]])
  await t.rejects(again.checkAdmin(), { name: 'ErpFault', message: /accepts the default administrator password admin\/admin/ })
  await t.rejects(createOdooAdapter({ endpoint: await backend.erpEndpoint?.(spec) ?? '', timeoutMs: 5000, database: spec.database.name, adminPassword: 'wrong' }).checkAdmin(),
    { message: /accepts the default administrator password/ }, 'whatever password the service holds')

  // A database restored from another instance's backup holds that instance's password: replaced with it.
  await again.setAdminPassword()
  const copy = createOdooAdapter({ endpoint: await backend.erpEndpoint?.(spec) ?? '', timeoutMs: 5000, database: spec.database.name, adminPassword: 'generated-2' })
  await t.rejects(copy.setAdminPassword(), { message: /accepts neither its generated administrator password nor the default one/ }, 'not without knowing it')
  // Three failed logins from this address in a row so far, and this call fails its first one: the
  // restored password is tried before the default, else the fifth failure would have the ERP refuse
  // every login from here for a minute (Odoo's login cooldown), the right password included.
  await copy.setAdminPassword(['generated-1'])
  await copy.checkAdmin()
  t.equal(await callOdoo({ endpoint: await backend.erpEndpoint?.(spec) ?? '', timeoutMs: 5000 }, 'common', 'authenticate', [spec.database.name, 'admin', 'generated-1', {}]), false, 'the former password no longer works')
})

async function waitForErp (adapter: ReturnType<typeof createOdooAdapter>): Promise<void> {
  const deadline = Date.now() + 15_000
  while (true) {
    try {
      await adapter.checkAdmin()
      return
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

engine.test('two provisions at once (two replicas): one initialisation runs, the other waits for it or is retried; one server', async (t) => {
  const backend = fixture.backend({ imageTemplate: await erpDoubleImage(), healthCheck: DOUBLE_HEALTH_CHECK })
  const spec = fixture.spec(tenantName(), {
    database: { host: 'db.internal', port: 5432, name: 'erp_twice', user: 'erp_user', password: 'db-pass' },
    erp: { masterPassword: generateErpPassword(), initialise: true }
  })
  const outcomes = await Promise.allSettled([backend.provision(spec), backend.provision(spec)])
  t.ok(outcomes.some((o) => o.status === 'fulfilled'), 'at least one got through')
  for (const outcome of outcomes) if (outcome.status === 'rejected') await backend.provision(spec) // the job's retry
  await waitForState(backend, spec, 'running')
  const containers = (await engine.docker.listContainers({ all: true, filters: { label: [`erp.instance-id=${spec.instanceUid}`] } })).map((c) => c.Names[0])
  t.same(containers, [`/erp-${spec.subdomain}`], 'one server, no initialisation container left')
  const endpoint = await backend.erpEndpoint?.(spec) ?? ''
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [spec.database.name, 'admin', 'admin', {}]), ODOO_ADMIN.uid, 'the database is initialised')
})
