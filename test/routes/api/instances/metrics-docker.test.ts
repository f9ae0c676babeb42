/** GET /metrics on the real Docker engine: container stats, the data volume, pg_database_size. */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('a running instance: live usage, then the stored sample; a stopped one: zeros and its storage', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { METRICS_INTERVAL_SECONDS: 3600 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('met')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  const { id } = created.json().instance
  await waitForState(app, admin.token, id, ['running', 'error'])
  // Something in the data volume, so its size is not zero.
  const container = docker.docker.getContainer(`erp-${subdomain}`)
  const exec = await container.exec({ Cmd: ['sh', '-c', 'head -c 3145728 /dev/zero > /var/lib/odoo/filler'], AttachStdout: true, AttachStderr: true })
  await new Promise<void>((resolve, reject) => exec.start({}, (error, stream) => error ? reject(error) : stream?.on('end', resolve).resume()))
  const get = () => app.inject({ method: 'GET', url: `/api/instances/${id}/metrics`, headers: bearer(admin.token) })

  const live = await get()
  t.equal(live.statusCode, 200, live.body)
  const metrics = live.json().metrics
  t.match(metrics, { instance_id: id, state: 'running', source: 'live', stale: false, cpu: { limit_cores: 1 }, memory: { limit_mb: 1024 }, storage: { limit_mb: 10240, volume_capacity_mb: null } })
  t.ok(metrics.cpu.used_cores >= 0 && metrics.cpu.used_cores <= 1, `cpu ${metrics.cpu.used_cores} cores, within the 1-core limit`)
  t.ok(metrics.memory.used_mb > 0 && metrics.memory.used_mb < 1024, `memory ${metrics.memory.used_mb} MB`)
  t.ok(metrics.storage.database_mb > 0, `database ${metrics.storage.database_mb} MB`)
  // The engine's df can outlast the request's 2 s on a busy host: then the volume is unknown (null), not a failure.
  t.ok(metrics.storage.volume_mb === null || metrics.storage.volume_mb >= 3, `volume ${metrics.storage.volume_mb} MB`)

  const again = (await get()).json().metrics
  t.equal(again.source, 'sample', 'within the interval the stored reading is served')
  t.equal(again.sampled_at, metrics.sampled_at)
  t.same(again.memory, metrics.memory)

  // The sampler (10 s per reading) measures the volume; its sample is what the route serves next.
  await app.sql({ text: 'UPDATE metric_samples SET sampled_at = sampled_at - interval \'2 hours\' WHERE instance_id = $1', values: [id] })
  t.same(await app.metrics.sampleNow(), { sampled: 1, failed: 0 })
  const sampled = (await get()).json().metrics
  t.equal(sampled.source, 'sample')
  t.ok(sampled.storage.volume_mb >= 3, `volume ${sampled.storage.volume_mb} MB holds the 3 MB written`)
  t.ok(sampled.memory.used_mb > 0, 'the sampler read the container too')

  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${id}/stop`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['stopped'])
  await app.sql({ text: 'UPDATE metric_samples SET sampled_at = sampled_at - interval \'2 hours\' WHERE instance_id = $1', values: [id] })
  const stopped = (await get()).json().metrics
  t.match(stopped, { state: 'stopped', source: 'live', cpu: { used_cores: 0 }, memory: { used_mb: 0 } })
  t.ok(stopped.storage.database_mb > 0, 'the database is still measured')
  t.ok(stopped.storage.volume_mb === null || stopped.storage.volume_mb >= 3, 'and the volume, when df answers in time')
})
