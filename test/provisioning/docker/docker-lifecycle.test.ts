/**
 * The Docker backend against the REAL engine: what one provisioned container looks like, and
 * its life through observe (starting → running, stop, start, restart, unhealthy, a kill behind
 * the backend's back, remove). The test image stands in for the ERP (busybox httpd on 8069).
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { execIn, publishedPort, requireDockerOrSkipLoudly, waitForHttp } from '../../support/docker/engine.ts'
import { dockerFixture, TEST_HEALTH_CHECK, tenantName, volumeExists, waitForState } from './helpers.ts'

const engine = await requireDockerOrSkipLoudly(t)
const fx = await dockerFixture(t, engine.available)
const docker = engine.docker
const tenant = tenantName()

engine.test('provision: the container, as the spec and the options say', async (t) => {
  const backend = fx.backend({ publishPort: true })
  const spec = fx.spec(tenant)
  await backend.provision(spec)
  const name = `erp-${spec.subdomain}`
  const info = await docker.getContainer(name).inspect()

  t.equal(info.Name, `/${name}`)
  t.equal(info.Config.Image, `${fx.imageRepo}:${fx.imageVersion}`, 'the image template filled with erpVersion')
  t.match(info.Config.Labels, {
    ...fx.run.labels,
    'erp.managed': 'true',
    'erp.instance-id': spec.instanceUid,
    'erp.tenant-id': spec.tenantId,
    'erp.tenant': tenant,
    'erp.subdomain': spec.subdomain,
    'traefik.enable': 'true',
    [`traefik.http.routers.${name}.rule`]: `Host(\`${spec.host}\`)`,
    [`traefik.http.services.${name}.loadbalancer.server.port`]: '8069'
  })
  const env = new Set(info.Config.Env)
  for (const entry of ['HOST=db.internal', 'PORT=8069', 'USER=erp_user', 'PASSWORD=s3cret-pass', 'ERP_DATABASE=erp_db', 'ERP_WORKERS=2']) {
    t.ok(env.has(entry), `env ${entry}`)
  }
  t.equal(info.HostConfig.ExtraHosts, null, 'a remote database host: no host-gateway alias')

  t.equal(info.HostConfig.RestartPolicy?.Name, 'unless-stopped')
  t.equal(info.HostConfig.Memory, 256 * 1024 * 1024)
  t.equal(info.HostConfig.NanoCpus, 500_000_000)
  t.same(info.Config.Healthcheck?.Test, TEST_HEALTH_CHECK.command)
  t.equal(info.Config.Healthcheck?.Interval, TEST_HEALTH_CHECK.intervalMs * 1e6)

  const addons = join(fx.addonsRoot, tenant, 'addons')
  t.ok(existsSync(addons), 'the tenant\'s addons folder was made on the host')
  // The engine lists mounts in no fixed order.
  t.match([...info.Mounts].sort((a, b) => a.Destination.localeCompare(b.Destination)), [
    { Type: 'bind', Source: addons, Destination: '/mnt/extra-addons', RW: false },
    { Type: 'volume', Name: `${name}-data`, Destination: '/var/lib/odoo', RW: true }
  ])
  t.ok(await volumeExists(`${name}-data`))

  const container = docker.getContainer(name)
  await writeFile(join(addons, 'manifest.txt'), 'from the host\n')
  t.equal((await execIn(container, ['cat', '/mnt/extra-addons/manifest.txt'])).stdout, 'from the host\n', 'the addons are visible')
  t.not((await execIn(container, ['touch', '/mnt/extra-addons/x'])).exitCode, 0, 'and read-only')
  t.equal((await execIn(container, ['sh', '-c', 'echo kept > /var/lib/odoo/filestore.txt'])).exitCode, 0, 'the data volume is writable')

  const port = publishedPort(await container.inspect())
  t.equal(info.HostConfig.PortBindings?.['8069/tcp']?.[0]?.HostIp, '127.0.0.1', 'published on loopback only')
  t.equal((await waitForHttp(`http://127.0.0.1:${port}/healthz`, 15_000)).body, 'ok\n', 'the ERP port answers')

  await waitForState(backend, spec, 'running')
  await backend.restart(spec)
  t.equal((await execIn(container, ['cat', '/var/lib/odoo/filestore.txt'])).stdout, 'kept\n', 'the filestore survives a restart')
})

engine.test('observe: starting while the health check fails, running once it passes, error when it fails again', async (t) => {
  // Healthy only while /tmp/ready exists; failures in the long start period keep it "starting".
  const backend = fx.backend({
    healthCheck: { ...TEST_HEALTH_CHECK, command: ['CMD-SHELL', `test -f /tmp/ready && ${TEST_HEALTH_CHECK.command[1] ?? ''}`], startPeriodMs: 120_000, retries: 1 }
  })
  const spec = fx.spec(tenant)
  t.same(await backend.observe(spec), { state: 'missing' }, 'nothing before provision')
  await backend.provision(spec)
  const container = docker.getContainer(`erp-${spec.subdomain}`)
  t.match(await backend.observe(spec), { state: 'starting', message: 'health check pending' })

  await execIn(container, ['touch', '/tmp/ready'])
  const { seen } = await waitForState(backend, spec, 'running')
  t.same(seen.filter((state) => state !== 'starting'), ['running'], `only starting before running (${seen.join(' → ')})`)

  await execIn(container, ['rm', '/tmp/ready'])
  const { last } = await waitForState(backend, spec, 'error')
  t.match(last.message, /^unhealthy/)
  const all = await backend.observeAll([tenant])
  t.match(all.get(spec.subdomain), { state: 'error', message: /unhealthy/ }, 'observeAll reads it from the list too')
})

engine.test('stop, start, restart; a kill behind the backend\'s back; remove', async (t) => {
  const backend = fx.backend()
  const spec = fx.spec(tenant)
  const name = `erp-${spec.subdomain}`
  const container = docker.getContainer(name)
  await backend.provision(spec)
  await waitForState(backend, spec, 'running')

  await backend.stop(spec)
  t.same(await backend.observe(spec), { state: 'stopped', message: 'exited with code 0', exitCode: 0 })
  await backend.stop(spec)
  t.equal((await backend.observe(spec)).state, 'stopped', 'stop twice is fine')

  await backend.start(spec)
  await waitForState(backend, spec, 'running')
  await backend.start(spec)
  t.equal((await container.inspect()).State.Running, true, 'start twice is fine')

  const before = (await container.inspect()).State.StartedAt
  await backend.restart(spec)
  t.not((await container.inspect()).State.StartedAt, before, 'restart started it anew')
  await waitForState(backend, spec, 'running')

  await container.kill()
  t.match(await backend.observe(spec), { state: 'error', message: 'exited with code 137' }, 'SIGKILL is not a clean stop')
  await backend.restart(spec)
  await waitForState(backend, spec, 'running')
  t.pass('restart brings a killed instance back')

  await backend.remove(spec)
  t.same(await backend.observe(spec), { state: 'missing' })
  t.notOk(await volumeExists(`${name}-data`), 'the data volume is gone')
  await backend.remove(spec)
  await backend.stop(spec)
  t.same(await backend.observe(spec), { state: 'missing' }, 'remove twice and stop on missing are fine')
  await t.rejects(backend.start(spec), { name: 'DockerEngineError', statusCode: 404, message: /no such container/ }, 'start does not create')
  await t.rejects(backend.restart(spec), { statusCode: 404, message: /cannot restart/ })
})
