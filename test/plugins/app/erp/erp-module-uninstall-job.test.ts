/**
 * The module uninstall job on the real database, its ERP seen through the adapter's interface:
 * an uninstall call that gets no answer is decided by the module's state read back (`to remove`
 * is waited for through an ERP that answers nothing, `uninstalled` is done, still `installed`
 * is retried and failed on the last attempt); a dependent installed since the request fails it
 * with the names, without calling the uninstall; a module the ERP no longer has installed is
 * recorded uninstalled without a call. (End to end on the fake cluster's ERP:
 * instance-modules-uninstall-kubernetes.test.ts.)
 */
import t from 'tap'
import type { JobWithMetadata } from 'pg-boss'
import { build } from '../../../support/build.ts'
import { signup } from '../../../support/accounts.ts'
import { recordInstance } from '../../../support/instance-rows.ts'
import { createErpModuleUninstallJob } from '../../../../plugins/app/erp/erp-module-uninstall.job.ts'
import { erpErrorOf, type ErpAccess } from '../../../../plugins/app/erp/erp-access.ts'
import type { ErpModuleJobData } from '../../../../plugins/app/erp/erp-module.queue.ts'
import { ErpUnreachable } from '../../../../provisioning/erp/odoo-rpc.ts'
import type { OdooAdapter } from '../../../../provisioning/erp/odoo-adapter.ts'

// No workers: only this test runs the job, attempt by attempt.
const { app } = await build(t, { env: { JOB_WORKERS: false } })
const admin = await signup(app)
const instanceId = await recordInstance(app, admin.user.tenant_id, { state: 'running' })

/**
 * An ERP where the module starts `first`; the uninstall call answers nothing (or resolves when
 * `answers`); `reads` are the states each later read gives (an Error: no answer), the last repeated.
 */
function erp ({ first = 'installed', dependents = [] as string[], answers = false, reads = ['uninstalled'] as Array<string | Error> } = {}) {
  const calls = { uninstall: 0, reads: 0 }
  let read = -1
  const adapter = {
    listModules: async (names: string[]) => {
      const next = read < 0 ? first : reads[Math.min(read, reads.length - 1)]
      if (read++ >= 0) calls.reads++
      if (next instanceof Error) throw next
      return names.map((name) => ({ id: 41, name, state: next }))
    },
    moduleDependents: async () => dependents.map((name, i) => ({ id: 50 + i, name, state: 'installed' })),
    uninstallModule: async () => {
      calls.uninstall++
      read = 0
      if (!answers) throw new ErpUnreachable('The ERP did not answer within 1 s')
    }
  } as unknown as OdooAdapter
  const access = { withErp: async (_em: unknown, _instance: unknown, work: (erp: OdooAdapter) => Promise<unknown>) => await work(adapter).catch((error: unknown) => { throw erpErrorOf(error) }) } as unknown as ErpAccess
  return { calls, job: createErpModuleUninstallJob({ em: app.orm.em, access, activity: app.activity, bounds: { timeoutMs: 1500, pollMs: 20 }, log: app.log }) }
}

/** An assignment already `uninstalling` (the request's part, tested through the route). */
async function uninstalling (technicalName: string): Promise<number> {
  const [row] = await app.sql<{ id: number }>({
    text: `WITH m AS (INSERT INTO erp_modules (technical_name, name, description, category, sequence, tenant_id) VALUES ($1, $1, '', 'Custom', 100, $2) RETURNING id)
      INSERT INTO instance_modules (tenant_id, instance_id, module_id, state, installed_at, created_at, updated_at) SELECT $2, $3, m.id, 'uninstalling', now(), now(), now() FROM m RETURNING id`,
    values: [technicalName, admin.user.tenant_id, instanceId]
  })
  return Number(row!.id)
}

const attempt = (instanceModuleId: number, retryCount: number) =>
  ({ data: { tenantId: admin.user.tenant_id, instanceModuleId }, retryCount, retryLimit: 3 }) as unknown as JobWithMetadata<ErpModuleJobData>
const stateOf = async (id: number) => (await app.sql<{ state: string, error: string | null }>({ text: 'SELECT state, error FROM instance_modules WHERE id = $1', values: [id] }))[0]!

t.test('no answer, then `to remove` through a reload that answers nothing, then uninstalled: done on the first attempt', async (t) => {
  const id = await uninstalling('slow_to_go')
  const { calls, job } = erp({ reads: ['to remove', new ErpUnreachable('no answer while the registry reloads'), 'uninstalled'] })
  await job(attempt(id, 0))
  t.same(await stateOf(id), { state: 'uninstalled', error: null })
  t.equal(calls.uninstall, 1)
  t.ok(calls.reads >= 3, 'read back until uninstalled')
  await job(attempt(id, 1))
  t.equal(calls.uninstall, 1, 'a stray later delivery does nothing')
})

t.test('no answer and the module still installed: retried (still uninstalling), failed on the last attempt', async (t) => {
  const id = await uninstalling('stays_put')
  const { calls, job } = erp({ reads: ['installed'] })
  await t.rejects(job(attempt(id, 0)), { code: 'ERP_UNAVAILABLE' }, 'thrown for pg-boss to retry')
  t.same(await stateOf(id), { state: 'uninstalling', error: null }, 'still uninstalling between attempts')
  await job(attempt(id, 3))
  t.match(await stateOf(id), { state: 'failed', error: /did not answer the uninstall of stays_put, and the module is installed/ })
  t.equal(calls.uninstall, 2)
})

t.test('a dependent installed since the request: failed naming it, the uninstall never called', async (t) => {
  const id = await uninstalling('needed_by_others')
  const { calls, job } = erp({ dependents: ['zeta_reports', 'alpha_sales'] })
  await job(attempt(id, 0))
  t.match(await stateOf(id), { state: 'failed', error: /^needed_by_others cannot be uninstalled while installed modules depend on it: alpha_sales, zeta_reports\./ })
  t.equal(calls.uninstall, 0)
  const [activity] = await app.sql<{ type: string }>({ text: "SELECT type FROM activities WHERE type LIKE 'instance_module.uninstall%' ORDER BY id DESC LIMIT 1", values: [] })
  t.equal(activity?.type, 'instance_module.uninstall_failed')
})

t.test('a module the ERP no longer has installed: recorded uninstalled without a call', async (t) => {
  const id = await uninstalling('gone_already')
  const { calls, job } = erp({ first: 'uninstalled' })
  await job(attempt(id, 0))
  t.same(await stateOf(id), { state: 'uninstalled', error: null })
  t.equal(calls.uninstall, 0)
})

t.test('the ERP answers the call: uninstalled', async (t) => {
  const id = await uninstalling('quick_to_go')
  const { calls, job } = erp({ answers: true })
  await job(attempt(id, 0))
  t.same(await stateOf(id), { state: 'uninstalled', error: null })
  t.equal(calls.uninstall, 1)
})
