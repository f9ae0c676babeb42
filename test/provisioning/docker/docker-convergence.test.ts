/**
 * The Docker backend against the REAL engine: repeated and concurrent calls leave exactly one
 * container, observeAll reads many instances from one list call, a missing image and a dead
 * engine fail clearly, and a network is used (and told to Traefik) when set.
 */
import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Docker from 'dockerode'
import t from 'tap'
import { BackendUnavailableError } from '../../../provisioning/backend.ts'
import { createDockerBackend } from '../../../provisioning/docker/index.ts'
import { requireDockerOrSkipLoudly } from '../../support/docker/engine.ts'
import { dockerFixture, tenantName, volumeExists, waitForState } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)
const docker = engine.docker

async function containersOf (subdomain: string): Promise<Docker.ContainerInfo[]> {
  return await docker.listContainers({ all: true, filters: { label: [`erp.subdomain=${subdomain}`] } })
}

t.test('a dead engine: check() and every call fail with BackendUnavailableError, saying where and what to do', async (t) => {
  const backend = createDockerBackend({ docker: new Docker({ socketPath: '/tmp/nope.sock' }), addonsRoot: fx.addonsRoot })
  const rejection = await backend.check().then(() => undefined, (error: unknown) => error)
  t.ok(rejection instanceof BackendUnavailableError, 'check() throws BackendUnavailableError')
  t.match(rejection, { backend: 'docker', message: 'The Docker engine does not answer at unix:///tmp/nope.sock', hint: /DOCKER_HOST/ })
  const spec = fx.spec('acme')
  await t.rejects(backend.observe(spec), BackendUnavailableError)
  await t.rejects(backend.provision(spec), { name: 'BackendUnavailableError', message: /unix:\/\/\/tmp\/nope\.sock.*inspect erp-/ })
  await t.rejects(backend.observeAll(['acme']), BackendUnavailableError)
})

engine.test('check() passes against the running engine', async (t) => {
  await fx.backend().check()
  t.pass()
})

engine.test('provision twice, then three at once: one container', async (t) => {
  const backend = fx.backend()
  const spec = fx.spec(tenantName())
  await backend.provision(spec)
  const [first] = await containersOf(spec.subdomain)
  await backend.provision(spec)
  const again = await containersOf(spec.subdomain)
  t.same(again.map((c) => c.Id), [first?.Id], 'the second provision kept the container')

  const racing = fx.spec(spec.tenantSubdomain)
  const replicas = [fx.backend(), fx.backend(), fx.backend()]
  await Promise.all(replicas.map((replica) => replica.provision(racing)))
  const found = await containersOf(racing.subdomain)
  t.equal(found.length, 1, 'three concurrent provisions made one container')
  t.equal(found[0]?.State, 'running', 'and started it')

  await Promise.all(replicas.map((replica) => replica.remove(racing)))
  t.same(await containersOf(racing.subdomain), [], 'three concurrent removes: gone, without error')
  t.notOk(await volumeExists(`erp-${racing.subdomain}-data`))
})

engine.test('observeAll: every instance of the given tenants from one container list', async (t) => {
  const backend = fx.backend()
  const [a, b] = [tenantName(), tenantName()]
  const running = fx.spec(a)
  const stopped = fx.spec(a)
  const killed = fx.spec(b)
  const otherTenant = fx.spec(tenantName())
  const neverMade = fx.spec(a)
  await Promise.all([running, stopped, killed, otherTenant].map((spec) => backend.provision(spec)))
  await Promise.all([running, stopped, killed].map((spec) => waitForState(backend, spec, 'running')))
  await backend.stop(stopped)
  await docker.getContainer(`erp-${killed.subdomain}`).kill()

  // Count the engine calls observeAll makes through a client of its own.
  const counted = new Docker()
  const calls = { list: 0 }
  const list = counted.listContainers.bind(counted) as (opts: object) => Promise<Docker.ContainerInfo[]>
  Object.assign(counted, { listContainers: async (opts: object) => { calls.list++; return await list(opts) } })
  const all = await fx.backend({ docker: counted }).observeAll([a, b])

  t.equal(calls.list, 1, 'one list call')
  t.same([...all.keys()].sort(), [running.subdomain, stopped.subdomain, killed.subdomain].sort(), 'only the given tenants\' instances')
  t.same(all.get(running.subdomain), { state: 'running' })
  t.same(all.get(stopped.subdomain), { state: 'stopped', message: 'exited with code 0', exitCode: 0 })
  t.same(all.get(killed.subdomain), { state: 'error', message: 'exited with code 137', exitCode: 137 })
  t.equal(all.get(neverMade.subdomain), undefined, 'missing instances are absent')
  t.same(await backend.observeAll([]), new Map())
})

engine.test('an image that is not there and cannot be pulled: a clear error, and nothing created', async (t) => {
  const missing = `erp-no-such-image-${randomBytes(3).toString('hex')}`
  const backend = fx.backend({ imageTemplate: `${missing}:{version}` })
  const spec = fx.spec(tenantName())
  await t.rejects(backend.provision(spec), {
    name: 'DockerEngineError',
    message: new RegExp(`image ${missing}:${fx.imageVersion.replaceAll('.', '\\.')} is not in the Docker engine and could not be pulled`)
  })
  t.same(await containersOf(spec.subdomain), [])
  t.same(await backend.observe(spec), { state: 'missing' })
})

engine.test('an addons root that cannot hold folders: a clear error, and nothing created', async (t) => {
  const notAFolder = join(fx.addonsRoot, 'a-file')
  await writeFile(notAFolder, '')
  const spec = fx.spec(tenantName())
  await t.rejects(fx.backend({ addonsRoot: notAFolder }).provision(spec), { message: /cannot create the addons folder .*a-file.*ADDONS_ROOT/ })
  t.same(await containersOf(spec.subdomain), [])
})

engine.test('a network: containers join it and Traefik is told which one', async (t) => {
  const network = `erp-test-net-${randomBytes(4).toString('hex')}`
  await docker.createNetwork({ Name: network, Labels: fx.run.labels })
  t.teardown(async () => {
    await fx.backend().remove(spec).catch(() => {})
    await docker.getNetwork(network).remove().catch(() => {})
  })
  const backend = fx.backend({ network })
  const spec = fx.spec(tenantName())
  await backend.provision(spec)
  const info = await docker.getContainer(`erp-${spec.subdomain}`).inspect()
  t.equal(info.HostConfig.NetworkMode, network)
  t.ok(info.NetworkSettings.Networks[network], `attached to ${network}`)
  t.equal(info.Config.Labels['traefik.docker.network'], network)
  await waitForState(backend, spec, 'running')
})
