/**
 * The contract double's `odoo neutralize -d <db>` (what a staging copy gets before it starts), run
 * with the host's Python as its image runs it, no Docker: scheduled actions and mail servers turned
 * off and `database.is_neutralized` set, read back through the JSON-RPC API; and the switch that
 * makes it fail for a test, which changes nothing.
 */
import t from 'tap'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { localDatabase, odoo } from './local-double.ts'

t.test('neutralize, as Odoo 17 does it: every scheduled action off but the autovacuum, every mail server off and an active dummy added, database.is_neutralized set', async (t) => {
  const { config, db, serve } = await localDatabase(t, 'neutralize')
  let call = await serve()
  await call('ir.mail_server', 'create', [{ name: 'Production SMTP', smtp_host: 'smtp.example.com', smtp_port: 587 }])
  t.ok((await call('ir.cron', 'search_read', [[]], { fields: ['active'] }) as Array<{ active: boolean }>).every((c) => c.active), 'a new database has its scheduled actions on')
  t.same(await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.is_neutralized']]], { fields: ['value'] }), [], 'not neutralized yet')
  const run = await odoo(['neutralize', '-d', db, '-c', config, '--db_host', 'db.example', '--db_user', 'erp_x'])
  t.equal(run.code, 0, run.stderr)
  call = await serve()
  const crons = await call('ir.cron', 'search_read', [[]], { fields: ['name', 'active'] }) as Array<{ name: string, active: boolean }>
  t.ok(crons.length >= 2)
  t.same(crons.filter((c) => c.active).map((c) => c.name), ['Base: Auto-vacuum internal data'], 'every scheduled action is off but the autovacuum')
  t.same(await call('ir.mail_server', 'search_read', [[]], { fields: ['name', 'active'] }),
    [{ id: 1, name: 'Production SMTP', active: false }, { id: 2, name: 'neutralization - disable emails', active: true }], 'the mail server is off; the dummy delivers nowhere')
  t.same(await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.is_neutralized']]], { fields: ['key', 'value'] }).then((rows) => (rows as Array<{ key: string, value: string }>).map((r) => [r.key, r.value])),
    [['database.is_neutralized', 'true']])
})

t.test('a test can make it fail: non-zero exit with the reason on stderr, the database unchanged', async (t) => {
  const { dir, config, db, serve } = await localDatabase(t, 'neutralize')
  writeFileSync(join(dir, 'erp-double', 'neutralize-fails'), 'psycopg2.errors.UndefinedTable: relation "ir_cron" does not exist\n')
  const run = await odoo(['neutralize', '-d', db, '-c', config])
  t.not(run.code, 0)
  t.match(run.stderr, /relation "ir_cron" does not exist/)
  rmSync(join(dir, 'erp-double', 'neutralize-fails'))
  const byEnv = await odoo(['neutralize', '-d', db, '-c', config], { ERP_DOUBLE_NEUTRALIZE_FAILS: 'told to fail' })
  t.not(byEnv.code, 0)
  t.match(byEnv.stderr, /told to fail/, 'or through the environment (a container\'s)')
  const call = await serve()
  t.ok((await call('ir.cron', 'search_read', [[]], { fields: ['active'] }) as Array<{ active: boolean }>).every((c) => c.active), 'still on')
  t.same(await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.is_neutralized']]], {}), [])
  t.not((await odoo(['neutralize', '-c', config])).code, 0, 'without -d: refused')
})
