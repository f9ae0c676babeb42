import { Writable } from 'node:stream'
import t from 'tap'
import { build } from '../../support/build.ts'
import { signup } from '../../support/accounts.ts'
import { recordInstances } from '../../support/instance-rows.ts'
import { waitFor } from '../../support/invitations-flow.ts'
import { INSTANCE_QUEUE } from '../../../plugins/app/instances/instance-actions.queue.ts'
import { defineQueue } from '../../../lib/job-queue.ts'

// Every log line a job writes carries its job id and, for a job about an instance, the instance id.

type Line = Record<string, unknown>

const LOG_PROBE = defineQueue<{ instanceId: number, tenantId: string }>('log-probe', () => ({ retryLimit: 0 }))
const END_PROBE = defineQueue<{ fail?: boolean }>('end-probe', () => ({ retryLimit: 0 }))
const RID_FIRST = defineQueue<{ step: number }>('rid-first', () => ({ retryLimit: 0 }))
const RID_SECOND = defineQueue<{ step: number }>('rid-second', () => ({ retryLimit: 0 }))

function capture () {
  const lines: Line[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n')) if (text.trim() !== '') lines.push(JSON.parse(text) as Line)
      done()
    }
  })
  return { lines, logger: { level: 'info', stream } }
}

t.test('a handler\'s lines carry job_id, queue, instance_id and tenant_id from the job', async (t) => {
  const { lines, logger } = capture()
  const { app } = await build(t, {
    logger,
    env: { JOB_WORKERS: 'false' },
    routes: (app) => {
      void app.jobs.define(LOG_PROBE, async (_job, log) => {
        log.info('probe step one')
        log.child({ step: 2 }).warn('probe step two')
      })
    }
  })
  const tenantId = '0b6f3c1e-9a55-4c1b-8d0e-5a1f2b3c4d5e'
  const jobId = await app.jobs.boss.send('log-probe', { instanceId: 42, tenantId })
  await app.jobs.drain(LOG_PROBE)
  const probe = lines.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('probe step'))
  t.equal(probe.length, 2)
  for (const line of probe) t.match(line, { job_id: jobId, queue: 'log-probe', instance_id: 42, tenant_id: tenantId }, String(line.msg))
  t.same(lines.filter((line) => line.job_id === jobId).map((line) => line.msg), ['Job started', 'probe step one', 'probe step two', 'Job ended'], 'a drain logs the start and end too')
})

t.test('the instance job, run by the worker, logs its failed attempt with the job id and the instance id', async (t) => {
  const previous = process.env.DOCKER_HOST
  process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock' // the backend call fails: the attempt logs why
  t.teardown(() => { if (previous === undefined) delete process.env.DOCKER_HOST; else process.env.DOCKER_HOST = previous })
  const { lines, logger } = capture()
  const { app } = await build(t, { logger, env: { INSTANCE_BACKENDS: 'docker', INSTANCE_JOB_RETRIES: '1' } })
  const admin = await signup(app)
  const [instanceId] = await recordInstances(app, admin.user.tenant_id, { states: ['stopping'] })
  const jobId = await app.jobs.boss.send(INSTANCE_QUEUE.name, { instanceId, tenantId: admin.user.tenant_id, action: 'stop' }, { retryLimit: 1 })
  app.jobs.wake(INSTANCE_QUEUE)

  const line = await waitFor(async () => lines.find((l) => l.msg === 'Instance job attempt failed'), 30_000, 'the failed attempt\'s line')
  t.match(line, { job_id: jobId, instance_id: instanceId, tenant_id: admin.user.tenant_id, queue: INSTANCE_QUEUE.name, component: 'instance-jobs', action: 'stop', attempt: 1 })
  t.type((line.err as { message?: unknown } | undefined)?.message, 'string', 'with the error')
})

t.test('every job, run by the worker, logs its start and its end with outcome and duration, with the job\'s fields', async (t) => {
  const { lines, logger } = capture()
  const tenantId = '0b6f3c1e-9a55-4c1b-8d0e-5a1f2b3c4d5e'
  const { app } = await build(t, {
    logger,
    env: { INSTANCE_BACKENDS: 'docker' },
    routes: (app) => {
      void app.jobs.define(END_PROBE, async (job, log) => {
        await new Promise((resolve) => setTimeout(resolve, 30))
        log.info('end probe at work')
        if (job.data.fail === true) throw new Error('the probe was told to fail')
        return { done: true }
      })
    }
  })
  const ok = await app.jobs.boss.send('end-probe', { instanceId: 8, tenantId, requestId: 'req-12345678' })
  const failing = await app.jobs.boss.send('end-probe', { fail: true })
  app.jobs.wake(END_PROBE)
  const ended = (id: string | null) => lines.find((l) => l.msg === 'Job ended' && l.job_id === id)
  await waitFor(async () => ended(ok) !== undefined && ended(failing) !== undefined ? true : undefined, 30_000, 'both jobs\' end lines')

  const story = lines.filter((l) => l.job_id === ok).map((l) => l.msg)
  t.same(story, ['Job started', 'end probe at work', 'Job ended'], 'start, the handler\'s own lines, end: in that order')
  const fields = { job_id: ok, queue: 'end-probe', instance_id: 8, tenant_id: tenantId, request_id: 'req-12345678' }
  t.match(lines.find((l) => l.msg === 'Job started' && l.job_id === ok), { level: 30, attempt: 1, ...fields })
  const end = ended(ok)!
  t.match(end, { level: 30, outcome: 'completed', attempt: 1, ...fields })
  t.ok(typeof end.duration_ms === 'number' && end.duration_ms >= 25, `the duration in milliseconds (${String(end.duration_ms)})`)

  const failed = ended(failing)!
  t.match(failed, { level: 40, outcome: 'failed', attempt: 1, last: true, queue: 'end-probe', err: { message: 'the probe was told to fail' } }, 'a failed attempt ends at warn, with why')
  t.notOk('instance_id' in failed || 'request_id' in failed, 'no field the job\'s data does not carry')
})

t.test('a job queued while a request is served carries its request id, and so do the jobs it queues', async (t) => {
  const { lines, logger } = capture()
  const { app } = await build(t, {
    logger,
    env: { JOB_WORKERS: 'false' },
    routes: (app) => {
      void app.jobs.define(RID_FIRST, async () => {
        await app.orm.em.fork().transactional(async (tx) => { await app.jobs.send(tx, RID_SECOND, { step: 2 }) })
      })
      void app.jobs.define(RID_SECOND, async () => {})
      app.post('/test/queue-probe', async () => {
        await app.orm.em.fork().transactional(async (tx) => { await app.jobs.send(tx, RID_FIRST, { step: 1 }) })
        return { queued: true }
      })
    }
  })
  const answer = await app.inject({ method: 'POST', url: '/test/queue-probe', headers: { 'x-request-id': 'req-queue-probe-1' } })
  t.equal(answer.statusCode, 200, answer.body)
  t.equal(answer.headers['x-request-id'], 'req-queue-probe-1')
  await app.jobs.drain(RID_FIRST)
  await app.jobs.drain(RID_SECOND)
  for (const queue of ['rid-first', 'rid-second']) {
    const started = lines.find((l) => l.msg === 'Job started' && l.queue === queue)
    t.match(started, { request_id: 'req-queue-probe-1' }, `${queue}: its lines name the request that led to it`)
  }
  const outside = await app.orm.em.fork().transactional(async (tx) => app.jobs.send(tx, RID_SECOND, { step: 3 }))
  await app.jobs.drain(RID_SECOND)
  t.notOk('request_id' in (lines.find((l) => l.msg === 'Job started' && l.job_id === outside) ?? { request_id: 'missing line' }), 'a job queued outside any request carries none')
})
