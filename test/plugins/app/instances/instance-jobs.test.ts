/**
 * The instance job runner against the real database, with a scripted backend
 * (a test double of the ProvisioningBackend interface) so that each case can
 * stop the job at the exact point it is about: a stop that ends in a kill, an
 * attempt that fails to the last retry, a delete that overtakes a job at work.
 * The same behaviours on the real engine: test/routes/api/instances/instances-forced-stop.test.ts.
 */
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import { scopedEntityManager } from '../../../../database/tenancy.ts'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { instanceRow, instanceUid, recordInstance } from '../../../support/instance-rows.ts'
import type { InstanceSpec, Observation, ProvisioningBackend } from '../../../../provisioning/backend.ts'
import { createBackendRegistry } from '../../../../plugins/app/instances/backend-registry.ts'
import type { ErpDatabasesPort } from '../../../../plugins/app/instances/erp-databases-port.ts'
import { createInstanceJobRunner, type InstanceJobDeps } from '../../../../plugins/app/instances/instance-actions.job.ts'
import { createInstanceTransitions } from '../../../../plugins/app/instances/instance-transitions.ts'
import type { InstanceJobData } from '../../../../plugins/app/instances/instance-actions.queue.ts'
import type { InstanceAction } from '../../../../plugins/app/instances/instance-states.ts'

interface Script {
  calls: string[]
  /** What each provision was given for the ERP's first start. */
  erp: Array<InstanceSpec['erp']>
  seen: Observation
  afterProvision: Observation
  /** How long stop() takes: Docker's stop call lasts the grace period when it has to kill. */
  stopMs: number
  gate: Promise<void>
  hold: () => void
  release: () => void
  backend: ProvisioningBackend
}

/** A backend whose answers the test sets; `gate` holds provision() until released. */
function scriptedBackend (): Script {
  const calls: string[] = []
  let release: () => void = () => {}
  const script: Script = {
    calls,
    erp: [],
    seen: { state: 'missing' } as Observation,
    /** What observe answers once provision() returns. */
    afterProvision: { state: 'running' } as Observation,
    stopMs: 0,
    gate: Promise.resolve(),
    hold () { script.gate = new Promise<void>((resolve) => { release = resolve }) },
    release: () => release(),
    backend: {
      name: 'docker',
      check: async () => {},
      provision: async (spec) => { calls.push('provision'); script.erp.push(spec.erp); await script.gate; script.seen = script.afterProvision },
      start: async () => { calls.push('start') },
      stop: async () => { calls.push('stop'); await new Promise((resolve) => setTimeout(resolve, script.stopMs)) },
      restart: async () => { calls.push('restart') },
      remove: async () => { calls.push('remove'); script.seen = { state: 'missing' } },
      observe: async () => script.seen,
      observeAll: async () => new Map(),
      readUsage: async () => ({ cpuCores: 0, memoryMb: 0, volumeMb: null, volumeCapacityMb: null })
    }
  }
  return script
}

function databasesDouble (drops: string[]): ErpDatabasesPort {
  return {
    host: 'db.internal',
    port: 5432,
    namesFor: (id) => ({ database: `erp_${id}`, role: `erp_${id}` }),
    ensure: async (id) => ({ host: 'db.internal', port: 5432, name: `erp_${id}`, user: `erp_${id}`, password: 'x' }),
    drop: async (id) => { drops.push(id) },
    stage: async () => { throw new Error('no restore here') },
    promote: async () => { throw new Error('no restore here') },
    discardStaged: async () => { throw new Error('no restore here') },
    sizes: async () => new Map()
  }
}

async function setup (t: Parameters<typeof build>[0], beforeRunning?: InstanceJobDeps['beforeRunning']) {
  const { app } = await build(t, { env: { RECONCILE_SECONDS: 3600 } })
  const admin = await signup(app)
  const script = scriptedBackend()
  const drops: string[] = []
  const transitions = createInstanceTransitions({ activity: app.activity })
  const runner = createInstanceJobRunner({
    em: app.orm.em,
    backends: createBackendRegistry({ enabled: ['docker'], backends: { docker: script.backend }, notConfigured: {} }),
    databases: databasesDouble(drops),
    credentials: app.instances.erpCredentials,
    beforeRunning,
    transitions,
    instancesDomain: 'erp.test',
    readyTimeoutMs: 5000,
    errorGraceMs: 300,
    stopGraceSeconds: 1,
    pollMs: 20,
    log: app.log
  })
  const tenantId = admin.user.tenant_id
  const run = (instanceId: number, action: InstanceAction, attempt = { retryCount: 0, retryLimit: 2 }) => runner({
    data: { instanceId, tenantId, action }, signal: new AbortController().signal, ...attempt
  } as unknown as JobWithMetadata<InstanceJobData>)
  return { app: app as FastifyInstance, tenantId, script, drops, run, transitions }
}

async function detail (app: FastifyInstance, id: number): Promise<{ state: string, status: string | null, status_message: string | null }> {
  const [row] = await app.sql<{ state: string, status: string | null, status_message: string | null }>({
    text: 'SELECT state, status, status_message FROM instances WHERE id = $1', values: [id]
  })
  return row!
}

t.test('a stop whose ERP was killed after the grace period ends stopped, forced after N s; a clean one says nothing', async (t) => {
  const { app, tenantId, script, run } = await setup(t)
  const forced = await recordInstance(app, tenantId, { state: 'stopping' })
  script.seen = { state: 'error', message: 'exited with code 137', exitCode: 137 }
  script.stopMs = 1000 // the stop call waited out the grace period, then killed
  await run(forced, 'stop')
  t.match(await detail(app, forced), { state: 'stopped', status: 'stopped', status_message: /^forced after 1 s/ })
  script.stopMs = 0

  // Killed before (docker kill), then stopped: a stop, but not one we forced.
  const killedBefore = await recordInstance(app, tenantId, { state: 'stopping' })
  await run(killedBefore, 'stop')
  t.same(await detail(app, killedBefore), { state: 'stopped', status: 'stopped', status_message: null })

  const crashed = await recordInstance(app, tenantId, { state: 'stopping' })
  script.seen = { state: 'error', message: 'exited with code 1', exitCode: 1 }
  await run(crashed, 'stop')
  t.same(await detail(app, crashed), { state: 'stopped', status: 'stopped', status_message: null }, 'any exit after our stop is a stop')

  const clean = await recordInstance(app, tenantId, { state: 'stopping' })
  script.seen = { state: 'stopped', message: 'exited with code 0', exitCode: 0 }
  await run(clean, 'stop')
  t.same(await detail(app, clean), { state: 'stopped', status: 'stopped', status_message: null })

  // Without an exit, an error is still an error: a stop that cannot stop the ERP fails.
  const stuck = await recordInstance(app, tenantId, { state: 'stopping' })
  script.seen = { state: 'error', message: 'unhealthy' }
  await run(stuck, 'stop', { retryCount: 2, retryLimit: 2 })
  t.match(await detail(app, stuck), { state: 'error', status_message: 'Not stopped in time: the backend reports error (unhealthy)' })
})

t.test('an attempt that fails is retried (the instance keeps its state); the last one moves it to error with the reason', async (t) => {
  const { app, tenantId, script, run } = await setup(t)
  const id = await recordInstance(app, tenantId, { state: 'starting' })
  script.seen = { state: 'error', message: 'exited with code 3', exitCode: 3 }
  await t.rejects(run(id, 'start', { retryCount: 0, retryLimit: 1 }), /Not running in time: the backend reports error \(exited with code 3\)/)
  t.equal((await instanceRow(app, id)).state, 'starting', 'pg-boss retries it')
  await run(id, 'start', { retryCount: 1, retryLimit: 1 })
  t.match(await detail(app, id), { state: 'error', status_message: 'Not running in time: the backend reports error (exited with code 3)' })
})

t.test('a started instance is reported running only once beforeRunning (the ERP password step) succeeded; its failure is retried, the last one is an error', async (t) => {
  const seenIn: string[] = []
  let refuse = true
  // oxlint-disable-next-line prefer-const -- the hook given to setup() reads it; it is set once setup() returns
  let app: FastifyInstance | undefined
  const setUp = await setup(t, async (_em, instance) => {
    seenIn.push((await instanceRow(app!, instance.id)).state)
    if (refuse) throw new Error('The ERP\'s administrator password is not secured: The ERP cannot be reached')
  })
  app = setUp.app
  const { tenantId, script, run } = setUp
  script.seen = { state: 'running' }
  const id = await recordInstance(app, tenantId, { state: 'starting' })
  await t.rejects(run(id, 'start', { retryCount: 0, retryLimit: 1 }), /administrator password is not secured/)
  t.equal((await instanceRow(app, id)).state, 'starting', 'not running although the backend shows it running: pg-boss retries')
  await run(id, 'start', { retryCount: 1, retryLimit: 1 })
  t.match(await detail(app, id), { state: 'error', status_message: 'The ERP\'s administrator password is not secured: The ERP cannot be reached' })

  refuse = false
  const restarting = await recordInstance(app, tenantId, { state: 'restarting' })
  await run(restarting, 'restart')
  t.equal((await instanceRow(app, restarting)).state, 'running')
  t.same(seenIn, ['starting', 'starting', 'restarting'], 'run while the instance is still in its transitional state, never after running')

  const stopping = await recordInstance(app, tenantId, { state: 'stopping' })
  script.seen = { state: 'stopped', exitCode: 0 }
  await run(stopping, 'stop')
  t.equal(seenIn.length, 3, 'not for a stop')
})

t.test('a delete that overtakes a job at work: the job stops waiting and removes what it made after the delete', async (t) => {
  const { app, tenantId, script, drops, run, transitions } = await setup(t)
  const actor = { kind: 'system' as const, tenantId, job: 'test' }
  const deleteNow = async (id: number, from: 'provisioning') => {
    await scopedEntityManager(app.orm.em, tenantId).transactional((tx) => transitions.moveIf(tx, actor, id, [from], { to: 'deleting' }))
    await run(id, 'delete')
  }

  // The provision is held inside the backend call; the delete runs to the end meanwhile.
  const made = await recordInstance(app, tenantId, { state: 'provisioning' })
  script.hold()
  const provisioning = run(made, 'provision')
  while (!script.calls.includes('provision')) await new Promise((resolve) => setTimeout(resolve, 5))
  await deleteNow(made, 'provisioning')
  t.equal((await instanceRow(app, made)).state, 'deleted')
  t.same(script.calls, ['provision', 'remove'])
  script.release() // the provision now "creates" the container, after the delete removed everything
  await provisioning
  t.same(script.calls, ['provision', 'remove', 'remove'], 'the overtaken job removed what it made')
  const uid = await instanceUid(app, made)
  t.same(drops, [uid, uid], 'and dropped the database it may have made')
  t.same(script.seen, { state: 'missing' })
  t.equal((await instanceRow(app, made)).state, 'deleted', 'the record stays deleted')

  // Overtaken while it waits for readiness: it stops waiting at once instead of at the ready timeout.
  script.calls.length = 0
  const waiting = await recordInstance(app, tenantId, { state: 'provisioning' })
  script.gate = Promise.resolve()
  script.afterProvision = { state: 'starting', message: 'health check pending' }
  const started = Date.now()
  const job = run(waiting, 'provision')
  while (!script.calls.includes('provision')) await new Promise((resolve) => setTimeout(resolve, 5))
  await deleteNow(waiting, 'provisioning')
  await job
  t.ok(Date.now() - started < 4000, 'well before the 5 s ready timeout')
  t.same(script.calls, ['provision', 'remove', 'remove'])
  t.equal((await instanceRow(app, waiting)).state, 'deleted')
})

t.test('the first provision initialises the ERP database and records it; later ones do not; the passwords are sealed', async (t) => {
  const { app, tenantId, script, run } = await setup(t)
  const id = await recordInstance(app, tenantId, { state: 'provisioning' })
  await run(id, 'provision')
  t.same(script.calls, ['provision'])
  t.equal(script.erp[0]?.initialise, true, 'the first provision initialises')
  const first = script.erp[0]
  t.ok(first !== undefined && first.masterPassword.length >= 32, 'a generated master password')
  const [row] = await app.sql<{ initialised_at: Date | null, admin_password_sealed: string, master_password_sealed: string }>({
    text: 'SELECT c.initialised_at, c.admin_password_sealed, c.master_password_sealed FROM instance_erp_credentials c WHERE c.instance_id = $1', values: [id]
  })
  t.not(row?.initialised_at ?? null, null, 'recorded as initialised')
  t.notMatch(row?.master_password_sealed ?? '', first?.masterPassword ?? '-', 'stored sealed, not in clear')
  t.match(row?.admin_password_sealed ?? '', /^v1\./)

  // Gone behind our back: a start provisions again, without initialising, with the same master password.
  script.seen = { state: 'missing' }
  await app.sql({ text: "UPDATE instances SET state = 'starting' WHERE id = $1", values: [id] })
  await run(id, 'start')
  t.same(script.calls, ['provision', 'provision'])
  t.equal(script.erp[1]?.masterPassword, first?.masterPassword, 'the same master password')
  t.equal(script.erp[1]?.initialise, false)
})
