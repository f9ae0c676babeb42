import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { publishedPort, requireDockerOrSkipLoudly, waitForHttp } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, databaseExists, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { activeSubscription } from '../../../support/billing-fixtures.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

docker.test('an instance is created, runs, stops, starts, restarts and is deleted on the real engine', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('life')
  const created = await app.inject({
    method: 'POST', url: '/api/instances/create', headers: bearer(admin.token),
    payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' }
  })
  t.equal(created.statusCode, 202, created.body)
  const { id, state } = created.json().instance
  t.equal(state, 'provisioning')

  await waitForState(app, admin.token, id, ['running', 'error'])
  const detail = (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match(detail, { state: 'running', status: 'running', url: `https://${subdomain}.erp.test`, version: 'erp-stand-in:17.0', status_message: null })
  t.ok(detail.database_size > 0, `database_size ${detail.database_size} MB from pg_database_size`)
  t.equal(typeof id, 'number', 'the API\'s id is an integer')
  const uid = await instanceUid(app, id)
  const dbName = `erp_${uid.replaceAll('-', '')}`
  t.equal(detail.database_name, dbName)
  t.ok(await databaseExists(databaseUrl, dbName), 'the instance has its own database')

  const info = await docker.docker.getContainer(`erp-${subdomain}`).inspect()
  t.equal(info.Name, `/erp-${subdomain}`)
  t.equal(info.Config.Labels['erp.instance-id'], uid, 'the label carries the uid, which never changes')
  t.equal(info.Config.Labels[`traefik.http.routers.erp-${subdomain}.rule`], `Host(\`${subdomain}.erp.test\`)`)
  t.ok(info.Config.Env.includes(`USER=${dbName}`), 'database credentials handed to the container')
  t.equal(info.HostConfig.Memory, 1024 * 1024 * 1024)
  t.equal(info.HostConfig.NanoCpus, 1e9)
  t.equal(info.HostConfig.RestartPolicy?.Name, 'unless-stopped')
  t.ok(info.Mounts.some((m) => m.Destination === '/mnt/extra-addons' && m.RW === false), 'addons mounted read-only')
  t.ok(info.Mounts.some((m) => m.Destination === '/var/lib/odoo' && m.Name === `erp-${subdomain}-data`), 'filestore volume')
  const answer = await waitForHttp(`http://127.0.0.1:${publishedPort(info)}/healthz`, 10_000)
  t.equal(answer.status, 200, 'the ERP answers HTTP')

  const post = (action: string) => app.inject({ method: 'POST', url: `/api/instances/${id}/${action}`, headers: bearer(admin.token) })
  const stop = await post('stop')
  t.equal(stop.statusCode, 202)
  t.equal(stop.json().instance.state, 'stopping')
  const busy = await post('start')
  t.equal(busy.statusCode, 409, 'start while stopping')
  t.equal(busy.json().error.code, 'INSTANCE_BUSY')
  await waitForState(app, admin.token, id, ['stopped'])
  t.equal((await docker.docker.getContainer(`erp-${subdomain}`).inspect()).State.Running, false, 'the container really stopped')
  t.equal((await post('stop')).statusCode, 200, 'stop on stopped is a no-op')

  t.equal((await post('start')).statusCode, 202)
  await waitForState(app, admin.token, id, ['running'])
  const startedAt = (await docker.docker.getContainer(`erp-${subdomain}`).inspect()).State.StartedAt
  t.equal((await post('restart')).statusCode, 202)
  await waitForState(app, admin.token, id, ['running'])
  const restarted = await docker.docker.getContainer(`erp-${subdomain}`).inspect()
  t.ok(restarted.State.Running)
  t.not(restarted.State.StartedAt, startedAt, 'restart really restarted the container')

  const removal = await app.inject({ method: 'DELETE', url: `/api/instances/${id}`, headers: bearer(admin.token) })
  t.equal(removal.statusCode, 202)
  await waitForState(app, admin.token, id, ['deleted'])
  const gone = await docker.docker.getContainer(`erp-${subdomain}`).inspect().then(() => 200, (error: { statusCode?: number }) => error.statusCode)
  t.equal(gone, 404, 'container removed')
  t.notOk(await databaseExists(databaseUrl, dbName), 'database dropped')
  const list = (await app.inject({ method: 'GET', url: '/api/instances', headers: bearer(admin.token) })).json().instances
  t.same(list, [], 'a deleted instance leaves the list')
  t.equal((await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance.state, 'deleted', 'its record stays')

  const types = (await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1 ORDER BY id', values: [id] })).map((row) => row.type)
  t.same(types, ['instance.created', 'instance.running', 'instance.stopping', 'instance.stopped', 'instance.starting', 'instance.running',
    'instance.restarting', 'instance.running', 'instance.deleting', 'instance.deleted'], 'every transition is in the activity feed')
})

docker.test('a subdomain is unique across companies, and the plan limits instances', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const first = await signup(app)
  const second = await signup(app)
  const subdomain = uniqueSubdomain('uniq')
  const body = { name: 'A', subdomain, erp_version: '16.0', backend: 'docker' }
  t.equal((await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(first.token), payload: body })).statusCode, 202)
  const taken = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(second.token), payload: body })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error.code, 'SUBDOMAIN_TAKEN')

  await activeSubscription(app, second.user.tenant_id, { instances: 1, workers: 2 })
  const one = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(second.token), payload: { ...body, subdomain: uniqueSubdomain('lim') } })
  t.equal(one.statusCode, 202)
  t.match(one.json().instance, { memory: 2048, cpu: 2 }, 'resources follow the subscription: 2 workers')
  const over = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(second.token), payload: { ...body, subdomain: uniqueSubdomain('lim') } })
  t.equal(over.statusCode, 402)
  t.equal(over.json().error.code, 'PLAN_INSTANCE_LIMIT_REACHED')
  await waitForState(app, second.token, one.json().instance.id, ['running'])
})
