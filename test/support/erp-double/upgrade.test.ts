/**
 * The contract double's `odoo -d <db> -u all --stop-after-init` (what a version upgrade runs), with
 * the host's Python as its image runs it, no Docker: the database recorded at the image's version
 * (`ERP_DOUBLE_VERSION`), read back through the JSON-RPC API; and the switch that makes it fail for a
 * test, as Odoo fails on a module (an ERROR line naming it), which changes nothing.
 */
import t from 'tap'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { localDatabase, odoo, type OdooCall } from './local-double.ts'
import { failedModules } from '../../../plugins/app/upgrades/upgrade-output.ts'

const erpVersion = async (call: OdooCall) =>
  (await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.erp_version']]], { fields: ['value'] }) as Array<{ value: string }>).map((r) => r.value)

t.test('-u all --stop-after-init records the image\'s version on the database and exits', async (t) => {
  const { config, db, serve } = await localDatabase(t, 'upgrade')
  const run = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_VERSION: '18.0' })
  t.equal(run.code, 0, run.stderr)
  t.match(run.stderr, /updating modules all of database erp_copy to 18\.0/)
  const call = await serve()
  t.same(await erpVersion(call), ['18.0'], 'the database is at the new version')
  t.ok((await call('ir.cron', 'search_read', [[]], { fields: ['active'] }) as unknown[]).length >= 2, 'its data is still there')
})

t.test('a test can make it fail as Odoo 17 fails: exit 255, the module on the Loading line before the registry error, the database unchanged', async (t) => {
  const { dir, config, db, serve } = await localDatabase(t, 'upgrade')
  writeFileSync(join(dir, 'erp-double', 'upgrade-fails'), 'sale_custom: field "x" does not exist\n')
  const run = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_VERSION: '18.0' })
  t.equal(run.code, 255)
  t.match(run.stderr, /INFO erp_copy odoo\.modules\.loading: Loading module sale_custom \(\d+\/\d+\)\n.*\n.*ERROR erp_copy odoo\.modules\.registry: Failed to load registry\n[\s\S]*field "x" does not exist/)
  t.same(failedModules(run.stderr), ['sale_custom'], 'what the service reads of it')
  rmSync(join(dir, 'erp-double', 'upgrade-fails'))
  const byEnv = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_UPGRADE_FAILS: 'stock_extra: told to fail' })
  t.equal(byEnv.code, 255)
  t.same(failedModules(byEnv.stderr), ['stock_extra'], 'or through the environment (a container\'s)')
  const call = await serve()
  t.same(await erpVersion(call), [], 'not upgraded')
})
