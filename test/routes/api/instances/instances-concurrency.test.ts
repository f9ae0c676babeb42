import t from 'tap'
import pg from 'pg'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { INSTANCE_QUEUE } from '../../../../plugins/app/instances/instance-actions.queue.ts'

// Ten ERPs at once on a loaded engine take minutes; the file's default two would cut the wait short.
t.setTimeout(300_000)
const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

async function countDatabases (url: string, name: string): Promise<number> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0
  } finally {
    await client.end()
  }
}

docker.test('ten concurrent creates all reach running', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { JOB_CONCURRENCY: 10 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const started = Date.now()
  const created = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
    const response = await app.inject({
      method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
      payload: { name: `Parallel ${i}`, subdomain: uniqueSubdomain('par'), erp_version: '18.0', backend: 'docker' }
    })
    t.equal(response.statusCode, 202, response.body)
    return { id: response.json().instance.id as number, at: Date.now() }
  }))
  const seconds = await Promise.all(created.map(async ({ id, at }) => {
    const final = await waitForState(app, admin.token, id, ['running', 'error'], 180_000).catch((error: Error) => ({ state: error.message }))
    // The status answer carries the state only; why an instance is not running is in its status message.
    const [row] = await app.sql<{ status_message: string | null }>({ text: 'SELECT status_message FROM instances WHERE id = $1', values: [id] })
    t.equal(final.state, 'running', `instance ${id}: ${row?.status_message ?? 'no status message'}`)
    return (Date.now() - at) / 1000
  }))
  const sorted = [...seconds].sort((a, b) => a - b)
  t.comment(`create -> running on Docker, 10 concurrent: median ${((sorted[4]! + sorted[5]!) / 2).toFixed(2)} s, min ${sorted[0]!.toFixed(2)} s, max ${sorted[9]!.toFixed(2)} s, all ten ${((Date.now() - started) / 1000).toFixed(2)} s`)
  const containers = await docker.docker.listContainers({ filters: { label: ['erp.managed=true'], status: ['running'] } })
  for (const { id } of created) {
    const uid = await instanceUid(app, id)
    t.equal(containers.filter((c) => c.Labels['erp.instance-id'] === uid).length, 1, `one running container for ${id}`)
  }
})

docker.test('the provisioning job run twice, by two replicas at once, leaves one container and one database', async (t) => {
  // The app that records the instance works no jobs: both jobs wait for the two replicas below.
  const env = dockerInstanceEnv(t)
  const recorder = await build(t, { env: { ...env, JOB_WORKERS: 'false' } })
  t.teardown(() => cleanupInstances(recorder.databaseUrl))
  const admin = await signup(recorder.app)
  const subdomain = uniqueSubdomain('twice')
  const response = await recorder.app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Twice', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  const id = response.json().instance.id as number
  const uid = await instanceUid(recorder.app, id)
  await recorder.orm.em.fork().transactional(async (tx) => {
    await recorder.app.jobs.send(tx, INSTANCE_QUEUE, { instanceId: id, tenantId: admin.user.tenant_id, action: 'provision' })
  })
  const [queued] = await recorder.app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'created'", values: [INSTANCE_QUEUE.name] })
  t.equal(queued!.n, 2, 'two provisioning jobs for one instance')

  await Promise.all([build(t, { databaseUrl: recorder.databaseUrl, env }), build(t, { databaseUrl: recorder.databaseUrl, env })])
  await waitForState(recorder.app, admin.token, id, ['running'])
  // The job that lost the race may still be finishing (it finds the work done and stops).
  let completed = 0
  for (let tries = 0; tries < 300 && completed < 2; tries++) {
    const [done] = await recorder.app.sql<{ n: number }>({
      text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'", values: [INSTANCE_QUEUE.name]
    })
    completed = done!.n
    if (completed < 2) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(completed, 2, 'both jobs completed')
  const containers = await docker.docker.listContainers({ all: true, filters: { label: [`erp.instance-id=${uid}`] } })
  t.equal(containers.length, 1, 'exactly one container')
  t.equal(await countDatabases(recorder.databaseUrl, `erp_${uid.replaceAll('-', '')}`), 1, 'exactly one database')
  const running = await recorder.app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM activities WHERE instance_id = $1 AND type = 'instance.running'", values: [id] })
  t.equal(running[0]!.n, 1, 'the transition is recorded once')
})
