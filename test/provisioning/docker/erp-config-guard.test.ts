/**
 * The ERP server's configuration (master password, list_db = False, dbfilter) is in place on every
 * path that runs the ERP, on the real engine with the stand-in ERP, which serves the database
 * manager as Odoo does: open on the image's default configuration, closed under list_db = False.
 * A first attempt that failed after the engine made the container leaves it unconfigured; the
 * retry configures it before it runs. A start or restart of a container whose file was removed or
 * altered puts it back (and restarts an ERP that was running without it).
 */
import { pack } from 'tar-stream'
import t, { type Test } from 'tap'
import { containerConfig } from '../../../provisioning/docker/container-config.ts'
import { resolveOptions } from '../../../provisioning/docker/options.ts'
import type { InstanceSpec } from '../../../provisioning/backend.ts'
import { dockerClient, execIn, publishedPort, requireDockerOrSkipLoudly, waitForHttp } from '../../support/docker/engine.ts'
import { dockerFixture, erpSpec, initialiseDirectly, waitForState, WEB_HEALTH_CHECK } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)
const docker = engine.docker
const DISABLED = 'The database manager has been disabled by the administrator'

async function endpoint (spec: InstanceSpec): Promise<string> {
  return `http://127.0.0.1:${publishedPort(await docker.getContainer(`erp-${spec.subdomain}`).inspect())}`
}

async function rpc (url: string, service: string, method: string, args: unknown[]): Promise<{ result?: unknown, error?: { data: { name: string } } }> {
  const response = await fetch(`${url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'call', params: { service, method, args }, id: 1 }), signal: AbortSignal.timeout(10_000) })
  return await response.json() as { result?: unknown, error?: { data: { name: string } } }
}

async function assertManagerClosed (t: Test, spec: InstanceSpec): Promise<void> {
  const url = await endpoint(spec)
  t.match((await waitForHttp(`${url}/web/database/manager`, 15_000)).body, DISABLED, 'the manager page says it is disabled')
  t.match(await rpc(url, 'db', 'dump', ['admin', spec.database.name, 'zip']), { error: { data: { name: 'odoo.exceptions.AccessDenied' } } }, 'db.dump with the image\'s master password: AccessDenied')
  t.match(await rpc(url, 'db', 'dump', [spec.erp?.masterPassword, spec.database.name, 'zip']), { error: { data: { name: 'odoo.exceptions.AccessDenied' } } }, 'db.dump with the instance\'s own: AccessDenied too')
  t.match(await rpc(url, 'db', 'list', []), { error: { data: { name: 'odoo.exceptions.AccessDenied' } } }, 'db.list: AccessDenied')
}

/** A tar holding /etc/odoo/odoo.conf with `text`. */
function configTar (text: string): NodeJS.ReadableStream {
  const tar = pack()
  tar.entry({ name: 'etc/odoo/odoo.conf', mode: 0o644 }, text)
  tar.finalize()
  return tar as unknown as NodeJS.ReadableStream
}

engine.test('a first attempt that failed after the engine made the container: the retry configures it, the manager stays closed', async (t) => {
  const options = { publishPort: true, healthCheck: WEB_HEALTH_CHECK }
  const backend = fx.backend(options)
  const spec = await erpSpec(t, fx)
  t.teardown(() => backend.remove(spec))
  // What the failed attempt left: the database initialised, the container made, nothing written into it.
  const config = containerConfig(spec, resolveOptions({ docker: dockerClient(), imageTemplate: `${fx.imageRepo}:{version}`, addonsRoot: fx.addonsRoot, labels: fx.run.labels, ...options }))
  t.equal(await initialiseDirectly(config, spec.database.name, fx.run.labels), 0, 'the database was initialised')
  const leftover = await docker.createContainer(config)
  // Run as it is (what the retry used to do): the image's default configuration opens the database to anyone.
  await leftover.start()
  const open = await endpoint(spec)
  t.notMatch((await waitForHttp(`${open}/web/database/manager`, 15_000)).body, DISABLED, 'unconfigured: the manager is served')
  t.type((await rpc(open, 'db', 'dump', ['admin', spec.database.name, 'zip'])).result, 'string', 'unconfigured: db.dump with master password admin returns the database')

  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const held = await execIn(docker.getContainer(`erp-${spec.subdomain}`), ['cat', '/etc/odoo/odoo.conf'])
  t.match(held.stdout, `admin_passwd = ${spec.erp?.masterPassword}\n`, 'the retry wrote the instance\'s configuration')
  t.match(held.stdout, 'list_db = False\n')
  await assertManagerClosed(t, spec)
})

engine.test('start and restart put back a configuration removed or altered, restarting an ERP that ran without it', async (t) => {
  const backend = fx.backend({ publishPort: true, healthCheck: WEB_HEALTH_CHECK })
  const spec = await erpSpec(t, fx)
  t.teardown(() => backend.remove(spec))
  const container = docker.getContainer(`erp-${spec.subdomain}`)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const wanted = (await execIn(container, ['cat', '/etc/odoo/odoo.conf'])).stdout

  await backend.stop(spec)
  await container.putArchive(configTar('[options]\nadmin_passwd = admin\nlist_db = True\n'), { path: '/' })
  await backend.start(spec)
  await waitForState(backend, spec, 'running')
  t.equal((await execIn(container, ['cat', '/etc/odoo/odoo.conf'])).stdout, wanted, 'start of a stopped container with an altered file: put back')
  await assertManagerClosed(t, spec)

  // Root's file (as the backend writes it), in a folder the ERP's user cannot write: removed as root.
  t.equal((await execIn(container, ['rm', '/etc/odoo/odoo.conf'], { user: '0' })).exitCode, 0, 'the file is removed from the running container')
  const before = (await container.inspect()).State.StartedAt
  await backend.start(spec)
  t.not((await container.inspect()).State.StartedAt, before, 'a running ERP without its file: restarted to read it')
  t.equal((await execIn(container, ['cat', '/etc/odoo/odoo.conf'])).stdout, wanted, 'start of a running container without its file: put back')
  await waitForState(backend, spec, 'running')
  await assertManagerClosed(t, spec)

  await container.putArchive(configTar('[options]\nlist_db = True\n'), { path: '/' })
  await backend.restart(spec)
  t.equal((await execIn(container, ['cat', '/etc/odoo/odoo.conf'])).stdout, wanted, 'restart: put back')
  await waitForState(backend, spec, 'running')
  await assertManagerClosed(t, spec)
})
