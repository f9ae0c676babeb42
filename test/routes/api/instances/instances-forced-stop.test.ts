/**
 * An ERP that ignores SIGTERM, on the real engine: a stop kills it after the grace
 * period and ends `stopped` ("forced after N s"), and every later action works.
 * A job that fails on every attempt leaves the instance in `error` with the reason,
 * and delete works from a transitional state whose job is dead.
 */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, STUBBORN_IMAGE_TEMPLATE, tagStubbornImages, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { instanceRow, recordInstance } from '../../../support/instance-rows.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) {
  await tagTestImages()
  await tagStubbornImages()
}

const GRACE_SECONDS = 2

docker.test('a stop that has to kill the ERP ends stopped, forced after the grace period; start, restart and delete then work', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { ERP_IMAGE: STUBBORN_IMAGE_TEMPLATE, INSTANCE_STOP_GRACE_SECONDS: GRACE_SECONDS }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('stubborn')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Stubborn', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  t.equal(created.statusCode, 202, created.body)
  const id = created.json().instance.id as number
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  const container = docker.docker.getContainer(`erp-${subdomain}`)
  t.match((await container.inspect()).Config.Image, /^erp-stand-in-stubborn:/, 'the image that ignores SIGTERM')

  const post = (action: string) => app.inject({ method: 'POST', url: `/api/instances/${id}/${action}`, headers: bearer(admin.token) })
  const asked = Date.now()
  t.equal((await post('stop')).statusCode, 202)
  const stopped = await waitForState(app, admin.token, id, ['stopped', 'error'], 30_000)
  const tookMs = Date.now() - asked
  t.equal(stopped.state, 'stopped', 'a stop we asked for is a stop, even when the ERP had to be killed')
  t.ok(tookMs >= GRACE_SECONDS * 1000, `it got its ${GRACE_SECONDS} s grace period first (took ${tookMs} ms)`)
  const exited = (await container.inspect()).State
  t.equal(exited.Running, false)
  t.equal(exited.ExitCode, 137, 'killed by SIGKILL after the grace period')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail, { state: 'stopped', status: 'stopped' })
  t.match(detail.status_message, new RegExp(`^forced after ${GRACE_SECONDS} s`), 'the record says it was forced')

  // The reconciler sees a container that exited 137 and leaves the stopped instance alone.
  const round = await app.instances.reconcileNow()
  t.match(round, { corrected: 0, abandoned: 0 })
  t.equal((await instanceRow(app, id)).state, 'stopped')
  t.equal((await instanceRow(app, id)).status, 'stopped')

  t.equal((await post('start')).statusCode, 202, 'start is not refused')
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  const afterStart = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.equal(afterStart.status_message, null, 'the next transition clears the message')

  t.equal((await post('restart')).statusCode, 202, 'restart (which has to kill it too) is not refused')
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'], 30_000)).state, 'running')

  const removal = await app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })
  t.equal(removal.statusCode, 202)
  await waitForState(app, admin.token, id, ['deleted'])
  t.equal(await container.inspect().then(() => 200, (error: { statusCode?: number }) => error.statusCode), 404, 'container removed')

  const types = (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [id] })).map((row) => row.type)
  t.same(types, ['instance.created', 'instance.running', 'instance.stopping', 'instance.stopped', 'instance.starting', 'instance.running',
    'instance.restarting', 'instance.running', 'instance.deleting', 'instance.deleted'])
})

docker.test('a job that fails on every attempt leaves the instance in error with the reason, and delete works from there', async (t) => {
  // Never healthy within the ready timeout: every attempt fails, the last one records why.
  const { app, databaseUrl } = await build(t, {
    env: dockerInstanceEnv(t, { ERP_HEALTHCHECK: 'exit 1', INSTANCE_READY_TIMEOUT_SECONDS: 5, INSTANCE_JOB_RETRIES: 1 })
  })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('never')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Never ready', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  const id = created.json().instance.id as number
  t.equal((await waitForState(app, admin.token, id, ['error', 'running'], 60_000)).state, 'error')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, /^Not running in time: the backend reports starting/, 'the reason is on the record')
  const [job] = await app.sql<{ state: string, retry_count: number }>({
    text: "SELECT state::text, retry_count FROM pgboss.job WHERE name = 'instance-actions' AND data->>'instanceId' = $1", values: [id]
  })
  t.match(job, { state: 'completed', retry_count: 1 }, 'after its retries')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, id, ['deleted'])
})

docker.test('delete works from a transitional state whose job is dead, and from one whose job is still at work', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const remove = (id: number) => app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })

  for (const state of ['provisioning', 'starting', 'stopping', 'restarting']) {
    const id = await recordInstance(app, admin.user.tenant_id, { state }) // no job: as if it died
    const response = await remove(id)
    t.equal(response.statusCode, 202, `delete while ${state}`)
    t.equal(response.json().instance.state, 'deleting')
    t.equal((await waitForState(app, admin.token, id, ['deleted', 'error'])).state, 'deleted', `deleted from ${state}`)
  }

  // Asked while the provisioning job is at work: the delete wins and nothing is left behind.
  const subdomain = uniqueSubdomain('overtaken')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Overtaken', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  const id = created.json().instance.id as number
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (await docker.docker.getContainer(`erp-${subdomain}`).inspect().then(() => true, () => false)) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal((await instanceRow(app, id)).state, 'provisioning', 'the job is still at work')
  t.equal((await remove(id)).statusCode, 202)
  t.equal((await waitForState(app, admin.token, id, ['deleted', 'error'])).state, 'deleted')
  const until = Date.now() + 10_000
  let left = 1
  while (Date.now() < until) {
    const [jobsAtWork] = await app.sql<{ n: number }>({ text: "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'instance-actions' AND data->>'instanceId' = $1 AND state IN ('created', 'retry', 'active')", values: [id] })
    left = (await docker.docker.listContainers({ all: true, filters: { label: [`erp.instance-id=${id}`] } })).length
    if (jobsAtWork?.n === 0 && left === 0) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(left, 0, 'no container left once both jobs are done')
  t.equal((await instanceRow(app, id)).state, 'deleted')
})
