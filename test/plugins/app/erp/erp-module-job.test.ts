/**
 * The module install job on the real database, its ERP seen through the adapter's interface:
 * a fault of the ERP (a missing dependency, a version conflict) is final on the first attempt,
 * failed with the ERP's message and nothing thrown for pg-boss to retry; an install call that gets
 * no answer is decided by the module's state read back (an install still running is waited for,
 * through an ERP that answers nothing while it reloads); an ERP where the install did not happen
 * is retried until the last attempt. (The double's slow install, end to end: instance-erp-docker.test.ts.)
 */
import t from 'tap'
import type { JobWithMetadata } from 'pg-boss'
import { build } from '../../../support/build.ts'
import { bearer, signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { createErpModuleJob } from '../../../../plugins/app/erp/erp-module.job.ts'
import { erpErrorOf, type ErpAccess } from '../../../../plugins/app/erp/erp-access.ts'
import type { ErpModuleJobData } from '../../../../plugins/app/erp/erp-module.queue.ts'
import { ErpFault, ErpUnreachable } from '../../../../provisioning/erp/odoo-rpc.ts'
import type { OdooAdapter } from '../../../../provisioning/erp/odoo-adapter.ts'

// No workers: only this test runs the job, attempt by attempt.
const { app } = await build(t, { env: { JOB_WORKERS: false } })
const admin = await signup(app)
const instanceId = await recordInstance(app, admin.user.tenant_id, { state: 'running' })

/**
 * An ERP whose install answers `failure`; `reads` are what each later read of the module's state
 * gives (a state, or an error thrown: no answer while the ERP reloads), the last one repeated.
 */
function erpFailing (failure: Error, reads: Array<string | Error> = ['uninstalled'], bounds = { timeoutMs: 2000, pollMs: 20 }) {
  const calls = { install: 0, reads: 0 }
  let read = -1
  const erp = {
    listModules: async (names: string[]) => {
      // The job's first read (before installing) sees the module uninstalled; the rest follow `reads`.
      const next = read < 0 ? 'uninstalled' : reads[Math.min(read, reads.length - 1)]
      if (read++ >= 0) calls.reads++
      if (next instanceof Error) throw next
      return names.map((name) => ({ id: 41, name, state: next }))
    },
    updateModuleList: async () => {},
    installModule: async () => { calls.install++; read = 0; throw failure }
  } as unknown as OdooAdapter
  // As erp-access.ts's withErp: the adapter's errors mapped to ERP_ERROR / ERP_UNAVAILABLE.
  const access = { withErp: async (_em: unknown, _instance: unknown, work: (erp: OdooAdapter) => Promise<unknown>) => await work(erp).catch((error: unknown) => { throw erpErrorOf(error) }) } as unknown as ErpAccess
  return { calls, job: createErpModuleJob({ em: app.orm.em, access, activity: app.activity, install: bounds, log: app.log }) }
}

async function assigned (technicalName: string): Promise<number> {
  const [module] = await app.sql<{ id: number }>({
    text: `INSERT INTO erp_modules (technical_name, name, description, category, sequence, tenant_id) VALUES ($1, $1, '', 'Custom', 100, $2) RETURNING id`,
    values: [technicalName, admin.user.tenant_id]
  })
  const response = await app.inject({ method: 'POST', url: `/api/instances/${instanceId}/modules`, headers: bearer(admin.token), payload: { module_id: module!.id } })
  t.equal(response.statusCode, 202, response.body)
  const [row] = await app.sql<{ id: number }>({ text: 'SELECT id FROM instance_modules WHERE module_id = $1', values: [module!.id] })
  return row!.id
}

const attempt = (instanceModuleId: number, retryCount: number) =>
  ({ data: { tenantId: admin.user.tenant_id, instanceModuleId }, retryCount, retryLimit: 5 }) as unknown as JobWithMetadata<ErpModuleJobData>
const stateOf = async (id: number) => (await app.sql<{ state: string, error: string | null }>({ text: 'SELECT state, error FROM instance_modules WHERE id = $1', values: [id] }))[0]!

t.test('an ERP fault (missing dependency, version conflict) fails the install at once, with the ERP\'s message', async (t) => {
  for (const [name, fault] of [
    ['needs_sale', new ErpFault('odoo.exceptions.UserError', 'You try to install module needs_sale that depends on module sale. But the latter module is not available in your system.')],
    ['wrong_series', new ErpFault('odoo.exceptions.UserError', 'Module wrong_series is not installable: its version 16.0.1.0.0 does not fit this server (17.0)')]
  ] as const) {
    const id = await assigned(name)
    const { calls, job } = erpFailing(fault)
    await job(attempt(id, 0))
    t.same(await stateOf(id), { state: 'failed', error: fault.message }, `${name}: failed on the first of six attempts, nothing thrown for a retry`)
    t.equal(calls.install, 1)
    await job(attempt(id, 1))
    t.equal(calls.install, 1, `${name}: a stray later delivery does not ask the ERP again`)
  }
  const activity = await app.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE type LIKE 'instance_module.%' AND type <> 'instance_module.requested' ORDER BY id", values: [] })
  t.same(activity.map((a) => a.type), ['instance_module.failed', 'instance_module.failed'])
})

t.test('no answer and the module not being installed: retried, and failed on the last attempt', async (t) => {
  const id = await assigned('waits_for_erp')
  const { calls, job } = erpFailing(new ErpUnreachable('The ERP did not answer within 5000 ms'))
  await t.rejects(job(attempt(id, 0)), { code: 'ERP_UNAVAILABLE' }, 'thrown: pg-boss retries it')
  t.same(await stateOf(id), { state: 'queued', error: null })
  await t.rejects(job(attempt(id, 4)))
  await job(attempt(id, 5))
  t.match(await stateOf(id), { state: 'failed', error: /did not answer the install of waits_for_erp, and the module is uninstalled/ }, 'the last attempt records the failure')
  t.equal(calls.install, 3)
})

t.test('no answer to the install call is unknown: the state read back decides, through the reload', async (t) => {
  const id = await assigned('slow_app')
  const reload = new ErpUnreachable('The ERP did not answer within 15000 ms')
  const { calls, job } = erpFailing(reload, ['to install', reload, reload, 'installed'])
  await job(attempt(id, 0))
  t.match(await stateOf(id), { state: 'installed', error: null }, 'installed on the first attempt, though its call got no answer')
  t.same(calls, { install: 1, reads: 4 }, 'one install call; read back while it ran and while nothing answered')

  const never = await assigned('never_ends')
  const stuck = erpFailing(reload, ['to install'], { timeoutMs: 300, pollMs: 20 })
  await t.rejects(stuck.job(attempt(never, 0)), { code: 'ERP_UNAVAILABLE', message: /still running after 0 s/ }, 'past its bound the job is retried')
  t.same(await stateOf(never), { state: 'queued', error: null })
  // The retry finds the earlier install still running (the ERP lists it `to install`): no second install, waits for it.
  const retry = createErpModuleJob({ em: app.orm.em, access: accessTo(['to install', 'to install', 'installed']), activity: app.activity, install: { timeoutMs: 2000, pollMs: 20 }, log: app.log })
  await retry(attempt(never, 1))
  t.match(await stateOf(never), { state: 'installed' }, 'the retry waited for the install already running')
})

/** An ERP whose module reads follow `states` and whose install must not be called. */
function accessTo (states: string[]): ErpAccess {
  let read = 0
  const erp = {
    listModules: async (names: string[]) => names.map((name) => ({ id: 42, name, state: states[Math.min(read++, states.length - 1)] })),
    updateModuleList: async () => {},
    installModule: async () => { throw new Error('a second install while one runs') }
  } as unknown as OdooAdapter
  return { withErp: async (_em: unknown, _instance: unknown, work: (erp: OdooAdapter) => Promise<unknown>) => await work(erp).catch((error: unknown) => { throw erpErrorOf(error) }) } as unknown as ErpAccess
}
