import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

async function runningInstance (app: Parameters<typeof waitForState>[0], token: string): Promise<{ id: number, subdomain: string }> {
  const subdomain = uniqueSubdomain('drift')
  const response = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(token),
    payload: { name: 'Drifting', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  const id = response.json().instance.id as number
  await waitForState(app, token, id, ['running'])
  return { id, subdomain }
}

docker.test('the reconciler notices containers killed or stopped behind our back, and records it', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const killed = await runningInstance(app, admin.token)
  const stopped = await runningInstance(app, admin.token)
  const untouched = await runningInstance(app, admin.token)

  const quiet = await app.instances.reconcileNow()
  t.match(quiet, { checked: 3, corrected: 0, unreachable: [] }, 'nothing to correct while all run')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${untouched.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.last_sync, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/, 'last_sync set by the reconciler')

  await docker.docker.getContainer(`erp-${killed.subdomain}`).kill()
  await docker.docker.getContainer(`erp-${stopped.subdomain}`).stop({ t: 5 })
  const round = await app.instances.reconcileNow()
  t.equal(round.corrected, 2)

  const killedStatus = await waitForState(app, admin.token, killed.id, ['error', 'stopped'], 1000)
  t.ok(['error', 'stopped'].includes(killedStatus.state), `killed: ${killedStatus.state}`)
  t.equal((await waitForState(app, admin.token, stopped.id, ['stopped'], 1000)).state, 'stopped')
  t.equal((await waitForState(app, admin.token, untouched.id, ['running'], 1000)).state, 'running')
  const records = await app.sql<{ type: string, actor_kind: string, actor_id: string, title: string }>({
    text: 'SELECT type, actor_kind, actor_id, title FROM activities WHERE instance_id = ANY($1::bigint[]) AND actor_id = $2 ORDER BY id',
    values: [[killed.id, stopped.id], 'instance-reconciler']
  })
  t.equal(records.length, 2, 'each correction is in the activity feed')
  t.ok(records.every((r) => r.actor_kind === 'system' && /reconciler/.test(r.title)))

  // A person can bring it back through the API.
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${stopped.id}/start`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, stopped.id, ['running'])
})

docker.test('the scheduled reconciliation catches a removed container by itself (RECONCILE_SECONDS=1)', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { RECONCILE_SECONDS: 1 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const instance = await runningInstance(app, admin.token)
  await docker.docker.getContainer(`erp-${instance.subdomain}`).remove({ force: true })
  const seen = await waitForState(app, admin.token, instance.id, ['error'], 30_000)
  t.equal(seen.state, 'error')
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${instance.id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail.status_message, /gone from the backend/)

  // Starting it again recreates what was removed.
  t.equal((await app.inject({ method: 'POST', url: `/api/instances/${instance.id}/start`, headers: bearer(admin.token) })).statusCode, 202)
  await waitForState(app, admin.token, instance.id, ['running'])
  t.ok((await docker.docker.getContainer(`erp-${instance.subdomain}`).inspect()).State.Running)
})
