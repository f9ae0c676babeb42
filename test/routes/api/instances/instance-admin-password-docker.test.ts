/**
 * On the real engine with the stand-in ERP (which keeps Odoo's admin/admin until the password is
 * written): an instance is reported running only once the ERP refuses admin/admin and takes the
 * generated password; an ERP that does not answer keeps it out of `running` (the job retries, the
 * last attempt is an error), and the reconciler does not report it running either.
 */
import t from 'tap'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { execIn, publishedPort, requireDockerOrSkipLoudly, testImage } from '../../../support/docker/engine.ts'
import { instanceUid } from '../../../support/instance-rows.ts'
import { cleanupInstances, dockerInstanceEnv, tagTestImages, uniqueSubdomain, waitForState } from '../../../support/instances.ts'
import { callOdoo } from '../../../../provisioning/erp/odoo-rpc.ts'
import { erpDatabaseNames } from '../../../../provisioning/erp-database.ts'
import { INSTANCE_QUEUE } from '../../../../plugins/app/instances/instance-actions.queue.ts'

const docker = await requireDockerOrSkipLoudly(t)
if (docker.available) await tagTestImages()

const NOT_ANSWERING = '/var/lib/odoo/erp-test-image/not-answering'

docker.test('reported running means admin/admin is already refused and the generated password works', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('pw')
  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  t.equal(created.statusCode, 202, created.body)
  const { id } = created.json().instance
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'running')
  const uid = await instanceUid(app, id)
  const endpoint = `http://127.0.0.1:${publishedPort(await docker.docker.getContainer(`erp-${subdomain}`).inspect())}`
  const database = erpDatabaseNames(uid).database
  const secrets = await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid })
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [database, 'admin', 'admin', {}]), false, 'admin/admin refused')
  t.equal(await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [database, 'admin', secrets?.adminPassword, {}]), 2, 'the generated password works')
  t.equal(secrets?.adminPasswordSet, true, 'recorded as set')
})

docker.test('an ERP that does not answer keeps the instance out of running: retried, then error; the reconciler does not flip it either', async (t) => {
  const { app, databaseUrl } = await build(t, { env: dockerInstanceEnv(t, { INSTANCE_JOB_RETRIES: 1, ERP_CALL_TIMEOUT_SECONDS: 2 }) })
  t.teardown(() => cleanupInstances(databaseUrl))
  const admin = await signup(app)
  const subdomain = uniqueSubdomain('silent')
  // The instance's data volume, made beforehand with the stand-in's "answer no JSON-RPC" switch on it.
  await docker.docker.createVolume({ Name: `erp-${subdomain}-data` })
  const seeder = await docker.docker.createContainer({
    Image: await testImage(),
    Entrypoint: ['/bin/sh', '-c', `mkdir -p ${NOT_ANSWERING.replace(/\/[^/]+$/, '')} && touch ${NOT_ANSWERING}`],
    HostConfig: { Mounts: [{ Type: 'volume', Source: `erp-${subdomain}-data`, Target: '/var/lib/odoo' }] }
  })
  await seeder.start()
  await seeder.wait()
  await seeder.remove()

  const created = await app.inject({ method: 'POST', url: '/api/instances/create', headers: bearer(admin.token), payload: { name: 'Production', subdomain, erp_version: '17.0', backend: 'docker' } })
  const { id } = created.json().instance
  t.equal((await waitForState(app, admin.token, id, ['running', 'error'])).state, 'error', 'never reported running')
  const detail = async () => (await app.inject({ method: 'GET', url: `/api/instances/${id}`, headers: bearer(admin.token) })).json().instance
  t.match((await detail()).status_message, 'The ERP\'s administrator password is not secured: The ERP answered HTTP 502 without JSON-RPC', 'the reason')
  const [job] = await app.sql<{ retry_count: number }>({ text: 'SELECT retry_count FROM pgboss.job WHERE name = $1 AND data->>\'instanceId\' = $2', values: [INSTANCE_QUEUE.name, String(id)] })
  t.equal(job?.retry_count, 1, 'the job was retried')
  const container = docker.docker.getContainer(`erp-${subdomain}`)
  t.equal((await container.inspect()).State.Running, true, 'although its container runs')

  await app.instances.reconcileNow()
  t.equal((await detail()).state, 'error', 'the reconciler sees it running but does not report it so')
  const activities = await app.sql<{ type: string }>({ text: 'SELECT type FROM activities WHERE instance_id = $1', values: [id] })
  t.notOk(activities.some((a) => a.type === 'instance.running'), 'no running record at any time')

  // The ERP answers again: the reconciler secures it and reports it running.
  await execIn(container, ['rm', NOT_ANSWERING])
  await app.instances.reconcileNow()
  t.equal((await detail()).state, 'running', 'running once the password is set')
  const secrets = await app.instances.erpCredentials.read(app.orm.em.fork(), { id, uid: await instanceUid(app, id) })
  t.equal(secrets?.adminPasswordSet, true)
})
