/**
 * How a failed instance job speaks, with the real Docker backend: an image that
 * does not exist (and no registry to pull it from) fails the first attempt for
 * good, in the tenant's words, with the operator's details in the log only; an
 * engine that does not answer is retried, and meanwhile status_message says so.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import Docker from 'dockerode'
import t from 'tap'
import type { JobWithMetadata } from 'pg-boss'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { requireDockerOrSkipLoudly } from '../../../support/docker/engine.ts'
import { instanceRow, recordInstance } from '../../../support/instance-rows.ts'
import { createDockerBackend } from '../../../../provisioning/docker/index.ts'
import { createBackendRegistry } from '../../../../plugins/app/instances/backend-registry.ts'
import { createInstanceJobRunner } from '../../../../plugins/app/instances/instance-actions.job.ts'
import { clipAtWord, createInstanceTransitions } from '../../../../plugins/app/instances/instance-transitions.ts'
import { describeFailure } from '../../../../plugins/app/instances/job-failures.ts'
import { KubernetesApiError } from '../../../../provisioning/kubernetes/api-errors.ts'
import type { InstanceJobData } from '../../../../plugins/app/instances/instance-actions.queue.ts'

const engine = await requireDockerOrSkipLoudly(t)
/** Hosts, addresses, settings and registry words a tenant must never read. */
const INTERNALS = /ERP_IMAGE|DOCKER_HOST|registry|docker\.io|lookup|\d+\.\d+\.\d+\.\d+|erp-missing-|unix:\/\/|\.sock/i

async function setup (t: Parameters<typeof build>[0], docker: Docker, imageTemplate: string) {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const { app } = await build(t, { env: { RECONCILE_SECONDS: 3600 }, logger: { level: 'info', stream } })
  const log = app.log
  const admin = await signup(app)
  const addonsRoot = await mkdtemp(join(tmpdir(), 'erp-job-failures-'))
  t.teardown(() => rm(addonsRoot, { recursive: true, force: true }))
  const backend = createDockerBackend({ docker, imageTemplate, addonsRoot, instancesDomain: 'erp.test', healthCheck: null, callTimeoutMs: 3000 })
  const runner = createInstanceJobRunner({
    em: app.orm.em,
    backends: createBackendRegistry({ enabled: ['docker'], backends: { docker: backend }, notConfigured: {} }),
    databases: app.instances.databases,
    credentials: app.instances.erpCredentials,
    transitions: createInstanceTransitions({ activity: app.activity }),
    instancesDomain: 'erp.test',
    readyTimeoutMs: 5000,
    stopGraceSeconds: 1,
    log
  })
  const tenantId = admin.user.tenant_id
  const run = (instanceId: number, retryCount: number, retryLimit: number) => runner({
    id: randomBytes(8).toString('hex'), name: 'instance-actions', data: { instanceId, tenantId, action: 'provision' }, signal: new AbortController().signal, retryCount, retryLimit
  } as unknown as JobWithMetadata<InstanceJobData>)
  const statusMessage = async (id: number) => (await app.sql<{ status_message: string | null }>({ text: 'SELECT status_message FROM instances WHERE id = $1', values: [id] }))[0]?.status_message
  return { app, tenantId, run, lines, statusMessage }
}

engine.test('an image that does not exist and cannot be pulled: the first attempt fails for good, in the tenant\'s words', async (t) => {
  const missing = `erp-missing-${randomBytes(3).toString('hex')}`
  const { app, tenantId, run, lines, statusMessage } = await setup(t, engine.docker, `${missing}:{version}`)
  const id = await recordInstance(app, tenantId, { state: 'provisioning', subdomain: `gone-${randomBytes(4).toString('hex')}` })
  t.teardown(async () => { await app.instances.databases.drop((await app.sql<{ uid: string }>({ text: 'SELECT uid FROM instances WHERE id = $1', values: [id] }))[0]!.uid) })

  await run(id, 0, 5) // resolves: pg-boss is not asked to retry what a retry cannot fix
  t.equal((await instanceRow(app, id)).state, 'error', 'error after the first of six attempts')
  const message = await statusMessage(id)
  t.match(message, /ERP software for this version is not available on the hosting platform/)
  t.notMatch(message, INTERNALS, 'no registry, resolver, image name or setting')
  const [activity] = await app.sql<{ title: string }>({ text: "SELECT title FROM activities WHERE type = 'instance.error' AND instance_id = $1", values: [id] })
  t.notMatch(activity?.title, INTERNALS)
  t.match(activity?.title, /\.$/, 'the activity title is whole')
  const logged = lines.find((line) => line.includes('Instance job attempt failed'))
  t.match(logged, `${missing}:17.0`, 'the log names the image')
  t.match(logged, 'ERP_IMAGE', 'and the setting')
  t.match(logged, '"retryable":false')
})

engine.test('an engine that does not answer: retried, and status_message says what is retried; the last attempt ends in error', async (t) => {
  const nowhere = new Docker({ socketPath: join(tmpdir(), `no-docker-${randomBytes(3).toString('hex')}.sock`) })
  const { app, tenantId, run, statusMessage } = await setup(t, nowhere, 'erp-stand-in:{version}')
  const id = await recordInstance(app, tenantId, { state: 'provisioning', subdomain: `retry-${randomBytes(4).toString('hex')}` })
  t.equal(await statusMessage(id), null)

  await t.rejects(run(id, 0, 2), 'pg-boss retries it')
  t.equal((await instanceRow(app, id)).state, 'provisioning')
  const retrying = await statusMessage(id)
  t.equal(retrying, 'Creating the instance failed (attempt 1 of 3) and is being retried: The hosting platform did not answer, so the platform could not create the instance.')
  t.notMatch(retrying, INTERNALS)

  await run(id, 2, 2)
  t.equal((await instanceRow(app, id)).state, 'error')
  t.equal(await statusMessage(id), 'The hosting platform did not answer, so the platform could not create the instance.')
})

t.test('a long message is cut at a word, with an ellipsis', async (t) => {
  const text = `Instance Shop failed: ${'word '.repeat(80)}end`
  const clipped = clipAtWord(text, 300)
  t.ok(clipped.length <= 300)
  t.match(clipped, /word…$/)
  t.equal(clipAtWord('short', 300), 'short')
})

t.test('what the tenant reads: the job\'s own account passes, the platform\'s insides do not', async (t) => {
  const own = 'Not running in time: the backend reports error (exited with code 3)'
  t.same(describeFailure(new Error(own), 'start'), { tenantMessage: own, retryable: true })
  for (const inside of [
    Object.assign(new Error('connect ECONNREFUSED 172.17.0.1:5432'), { syscall: 'connect' }),
    new Error('cannot create the addons folder /srv/addons/acme/addons for erp-shop (ADDONS_ROOT must be a writable folder on the Docker host)'),
    Object.assign(new Error('password authentication failed for user "erp_1"'), { severity: 'FATAL' })
  ]) {
    t.same(describeFailure(inside, 'start'), { tenantMessage: 'The platform could not start the instance because of an internal error.', retryable: true }, inside.message)
  }
  const invalid = new KubernetesApiError('apply Deployment erp-acme/erp-shop: Deployment.apps "erp-shop" is invalid', 422, undefined)
  t.same(describeFailure(invalid, 'provision'), {
    tenantMessage: 'The hosting platform refused the instance\'s configuration, so it could not create the instance; support has to correct it.', retryable: false
  }, 'a refused configuration fails at once')
  t.same(describeFailure(new KubernetesApiError('read Deployment erp-acme/erp-shop: conflict', 409, undefined), 'start'), {
    tenantMessage: 'The hosting platform could not start the instance.', retryable: true
  })
})
