/**
 * A slow engine (vfs: a big image takes 10-50 s to create, 7-17 s to remove) on the real engine,
 * with bounds of 1 ms forcing the timeouts: a create or remove that timed out leaves the engine
 * finishing it, and the next attempt with the normal bounds reuses (and configures) or waits out
 * what it left, and converges.
 */
import pg from 'pg'
import t from 'tap'
import { containerConfig } from '../../../provisioning/docker/container-config.ts'
import { resolveOptions } from '../../../provisioning/docker/options.ts'
import type { InstanceSpec, ProvisioningBackend } from '../../../provisioning/backend.ts'
import { dockerClient, execIn, requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { dockerFixture, erpSpec, initialiseDirectly, tenantName, volumeExists, waitForState, WEB_HEALTH_CHECK } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)
const docker = engine.docker

async function containersNamed (name: string): Promise<string[]> {
  const found = await docker.listContainers({ all: true, filters: { name: [`^/${name}$`] } })
  return found.map((c) => c.Id)
}

/** What a job does: the action again until the instance runs (each attempt is bounded). */
async function retryUntilRunning (backend: ProvisioningBackend, spec: InstanceSpec, attempts = 3): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      await backend.provision(spec)
      await waitForState(backend, spec, 'running', 20_000)
      return attempt
    } catch (error) {
      if (attempt >= attempts) throw error
    }
  }
}

engine.test('a create that timed out: the retry reuses the container the engine made, configured, and it runs', async (t) => {
  const options = { publishPort: true, healthCheck: WEB_HEALTH_CHECK }
  const spec = await erpSpec(t, fx)
  const backend = fx.backend(options)
  t.teardown(() => backend.remove(spec))
  const config = containerConfig(spec, resolveOptions({ docker: dockerClient(), imageTemplate: `${fx.imageRepo}:{version}`, addonsRoot: fx.addonsRoot, labels: fx.run.labels, ...options }))
  t.equal(await initialiseDirectly(config, spec.database.name, fx.run.labels), 0, 'the first attempt initialised the database')

  const slow = fx.backend({ ...options, createTimeoutMs: 1 })
  await t.rejects(slow.provision({ ...spec, erp: { masterPassword: spec.erp?.masterPassword ?? '', initialise: false } }),
    { name: 'BackendUnavailableError', message: /did not answer create erp-/ }, 'the create is cut off after its bound')

  t.equal(await retryUntilRunning(backend, spec), 1, 'the retry with the normal bounds converges at once')
  const name = `erp-${spec.subdomain}`
  t.equal((await containersNamed(name)).length, 1, 'one container: the one the engine made, or a new one')
  const held = await execIn(docker.getContainer(name), ['cat', '/etc/odoo/odoo.conf'])
  t.match(held.stdout, `admin_passwd = ${spec.erp?.masterPassword}\n`, 'configured before it ran')
  t.match(held.stdout, 'list_db = False\n')
})

engine.test('a remove that timed out: the retry converges to nothing; a provision right after one converges to one running container', async (t) => {
  const spec = fx.spec(tenantName())
  const name = `erp-${spec.subdomain}`
  const backend = fx.backend()
  t.teardown(() => backend.remove(spec))
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const first = await containersNamed(name)

  await t.rejects(fx.backend({ removeTimeoutMs: 1 }).remove(spec), { name: 'BackendUnavailableError', message: /did not answer remove erp-/ }, 'the remove is cut off after its bound')
  await backend.remove(spec)
  t.same(await backend.observe(spec), { state: 'missing' }, 'the retry converges: no container')
  t.notOk(await volumeExists(`${name}-data`), 'and no volume')

  await backend.provision(spec)
  await waitForState(backend, spec, 'running')
  const second = await containersNamed(name)
  t.not(second[0], first[0], 'provisioned anew')
  // The engine still removing the container when the next provision comes (a remove cut off by its bound).
  await fx.backend({ removeTimeoutMs: 1 }).remove(spec).catch(() => {})
  // The engine either finishes the removal (then a new container) or gives it up with the cut-off
  // call (the same one, started again); its kill may land after a provision saw the container run,
  // and the next attempt (a job's retry, the reconciler) converges: one container, running, staying so.
  let attempts = 0
  for (; attempts < 3; attempts++) {
    await retryUntilRunning(backend, spec)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    if ((await docker.getContainer(name).inspect().catch(() => undefined))?.State.Running === true) break
  }
  t.ok(attempts < 3, `running and staying so after ${attempts + 1} provision attempt(s)`)
  t.equal((await containersNamed(name)).length, 1, 'one container: the removal was waited out or abandoned, not raced')
})

/** Whether the stand-in's `-i base` ran in the database (its tables are there). */
async function initialisedIn (database: string): Promise<boolean> {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '')
  url.pathname = `/${database}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    return (await client.query("select to_regclass('public.ir_module_module') is not null as made")).rows[0]?.made === true
  } finally {
    await client.end()
  }
}

engine.test('an initialisation whose create timed out: the next attempt runs the container the engine made instead of making it again', async (t) => {
  const spec = await erpSpec(t, fx)
  const backend = fx.backend({ healthCheck: WEB_HEALTH_CHECK })
  t.teardown(() => backend.remove(spec))
  const slow = fx.backend({ healthCheck: WEB_HEALTH_CHECK, createTimeoutMs: 1 })
  const init = `erp-${spec.subdomain}-init`
  await t.rejects(slow.provision(spec), { name: 'BackendUnavailableError', message: `did not answer create ${init}` }, 'the init container\'s create is cut off')
  for (let i = 0; i < 200 && (await containersNamed(init)).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal((await containersNamed(init)).length, 1, 'the engine made it all the same')

  // Still on the slow engine: making the init container again would be cut off again; using the one there is not.
  await t.rejects(slow.provision(spec), { name: 'BackendUnavailableError', message: new RegExp(`did not answer create erp-${spec.subdomain} within`) }, 'this attempt gets as far as the instance\'s own container')
  t.ok(await initialisedIn(spec.database.name), 'the leftover init container ran: the database is initialised')
  t.same(await containersNamed(init), [], 'and it is gone once it ran')
  t.equal(await retryUntilRunning(backend, spec), 1, 'a retry with the normal bounds converges at once')
})
