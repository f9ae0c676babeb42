/**
 * The stand-in ERP fails where Odoo 17 fails, on the real engine and the real PostgreSQL: before
 * `-i base` its configured database answers every request with an HTML 500 page (the health
 * check and `common.version` included), so the instance never runs; after it, its state is in the
 * database (not on the volume) and an attachment written through the API is read back from
 * `filestore/<database>/`. Like Odoo, it refuses the database user postgres, runs as the user odoo
 * (uid 101) and answers every request with the HTML 500 page when it cannot make the web sessions
 * folder in a data folder it may not write.
 */
import pg from 'pg'
import t from 'tap'
import { callOdoo } from '../../../provisioning/erp/odoo-rpc.ts'
import { containerLogs, execIn, publishedPort, requireDockerOrSkipLoudly, testImage, testImageWith, waitForHttp } from '../../support/docker/engine.ts'
import { containerConfig } from '../../../provisioning/docker/container-config.ts'
import { resolveOptions } from '../../../provisioning/docker/options.ts'
import { dockerFixture, erpSpec, initialiseDirectly, waitForState, WEB_HEALTH_CHECK } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)

engine.test('uninitialised: HTML 500 everywhere and never running; initialised: its state in the database, attachments in filestore/<db>', async (t) => {
  const backend = fx.backend({ publishPort: true, healthCheck: WEB_HEALTH_CHECK })
  const spec = await erpSpec(t, fx)
  t.teardown(() => backend.remove(spec))
  const name = `erp-${spec.subdomain}`
  const url = async (): Promise<string> => `http://127.0.0.1:${publishedPort(await engine.docker.getContainer(name).inspect())}`

  await backend.provision({ ...spec, erp: { masterPassword: spec.erp?.masterPassword ?? '', initialise: false } })
  await waitForHttp(`${await url()}/healthz`, 15_000)
  const health = await fetch(`${await url()}/web/health`)
  t.equal(health.status, 500, '/web/health: 500 while the database is not initialised')
  t.match(health.headers.get('content-type'), /^text\/html/)
  const version = await fetch(`${await url()}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service: 'common', method: 'version', args: [] }, id: 1 }) })
  t.equal(version.status, 500, 'common.version too')
  t.match(await version.text(), '<title>500 Internal Server Error</title>', 'an HTML page, not a JSON-RPC error')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.match((await backend.observe(spec)).state, /^(starting|error)$/, 'the health check keeps failing: never running')

  await backend.provision(spec) // the retry: initialises the database, the container is reused
  await waitForState(backend, spec, 'running')
  const target = { endpoint: await url(), timeoutMs: 5000 }
  t.equal(await callOdoo(target, 'common', 'authenticate', [spec.database.name, 'admin', 'admin', {}]), 2)
  const id = await callOdoo(target, 'object', 'execute_kw', [spec.database.name, 2, 'admin', 'ir.attachment', 'create', [{ name: 'note.txt', datas: Buffer.from('kept with the database\n').toString('base64') }], {}])
  t.type(id, 'number', 'ir.attachment create answers its id')
  t.equal((await waitForHttp(`${await url()}/web/content/${String(id)}`, 5000)).body, 'kept with the database\n', 'read back from the filestore')
  t.equal((await fetch(`${await url()}/web/content/9999`)).status, 404, 'no such attachment: 404')
  const container = engine.docker.getContainer(name)
  t.equal((await execIn(container, ['id', '-u'])).stdout.trim(), '101', 'it runs as the user odoo (uid 101), as the official image')
  t.equal((await execIn(container, ['stat', '-c', '%u:%g %a %n', '/var/lib/odoo', '/var/lib/odoo/sessions'])).stdout,
    '101:101 755 /var/lib/odoo\n101:101 700 /var/lib/odoo/sessions\n', 'its fresh volume came with the image\'s owner; a request made sessions/')

  const db = new pg.Client({ connectionString: Object.assign(new URL(process.env.TEST_DATABASE_URL ?? ''), { pathname: `/${spec.database.name}` }).toString() })
  await db.connect()
  t.teardown(() => db.end())
  const params = new Map((await db.query<{ key: string, value: string }>('SELECT key, value FROM ir_config_parameter')).rows.map((r) => [r.key, r.value]))
  t.match(params.get('database.uuid'), /^[0-9a-f-]{36}$/, 'database.uuid in the database')
  t.match(params.get('database.secret'), /^[0-9a-f-]{36}$/, 'database.secret too')
  t.equal(params.get('web.base.url'), 'http://localhost:8069', 'web.base.url as a new Odoo database has it')
  t.same((await db.query('SELECT login, password FROM res_users WHERE id = 2')).rows, [{ login: 'admin', password: 'admin' }], 'the administrator in res_users')
  const [attachment] = (await db.query<{ store_fname: string }>('SELECT store_fname FROM ir_attachment WHERE id = $1', [id])).rows
  t.match(attachment?.store_fname, /^[0-9a-f]{2}\/[0-9a-f]{40}$/, 'store_fname as Odoo names it (<sha1[:2]>/<sha1>)')
})

engine.test('as Odoo, it refuses to run as the database user postgres, the initialisation too', async (t) => {
  for (const cmd of [['odoo'], ['odoo', '-d', 'any', '-i', 'base', '--stop-after-init']]) {
    const container = await engine.docker.createContainer({ Image: await testImage(), Cmd: cmd, Env: ['USER=postgres', 'TICK_SECONDS=0'], Labels: fx.run.labels })
    await container.start()
    t.equal((await container.wait() as { StatusCode: number }).StatusCode, 1, `${cmd.join(' ')}: exit 1`)
    t.match((await containerLogs(container)).stderr, "Using the database user 'postgres' is a security risk, aborting.")
    await container.remove({ force: true })
  }
})

engine.test('its initialisation takes ERP_INIT_SECONDS, as Odoo\'s -i base takes time', async (t) => {
  const spec = await erpSpec(t, fx)
  const image = await testImageWith({ ERP_INIT_SECONDS: '2' })
  const config = containerConfig(spec, resolveOptions({ docker: engine.docker, imageTemplate: image, addonsRoot: fx.addonsRoot }))
  const began = Date.now()
  t.equal(await initialiseDirectly(config, spec.database.name, fx.run.labels), 0)
  t.ok(Date.now() - began >= 2000, `took ${Date.now() - began} ms`)
})

engine.test('as Odoo, a data folder it may not write (owned by root) fails every request: its sessions folder cannot be made', async (t) => {
  const container = await engine.docker.createContainer({
    Image: await testImage(), Env: ['TICK_SECONDS=0'], Labels: fx.run.labels,
    HostConfig: { Tmpfs: { '/var/lib/odoo': 'mode=755' }, PortBindings: { '8069/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    ExposedPorts: { '8069/tcp': {} }
  })
  t.teardown(() => container.remove({ force: true }))
  await container.start()
  const url = `http://127.0.0.1:${publishedPort(await container.inspect())}`
  await waitForHttp(`${url}/healthz`, 15_000)
  const health = await fetch(`${url}/web/health`)
  t.equal(health.status, 500, '/web/health: 500')
  t.match(await health.text(), '<title>500 Internal Server Error</title>', 'the HTML page')
  const logged = "PermissionError: [Errno 13] Permission denied: '/var/lib/odoo/sessions'"
  let stderr = ''
  for (let tries = 0; tries < 50 && !stderr.includes(logged); tries++) {
    stderr = (await containerLogs(container)).stderr
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.match(stderr, logged, 'the error Odoo logs')
})
