/**
 * The contract double's `odoo neutralize -d <db>` (what a staging copy gets before it starts), run
 * with the host's Python as its image runs it, no Docker: scheduled actions and mail servers turned
 * off and `database.is_neutralized` set, read back through the JSON-RPC API; and the switch that
 * makes it fail for a test, which changes nothing.
 */
import t, { type Test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { callOdoo } from '../../../provisioning/erp/odoo-rpc.ts'

const DOUBLE = fileURLToPath(new URL('./odoo_double.py', import.meta.url))
const PYTHON = process.env.PYTHON ?? 'python3'

function odoo (args: string[], env: Record<string, string> = {}): Promise<{ code: number, stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, ['-S', DOUBLE, ...args], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), stderr })
    })
  })
}

async function freePort (): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** A data folder and config, a database initialised in it; `serve` runs the server until the test ends. */
async function database (t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'erp-double-neutralize-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const config = join(dir, 'odoo.conf')
  writeFileSync(config, `[options]\ndata_dir = ${dir}\n`)
  const db = 'erp_copy'
  const init = await odoo(['-c', config, '-d', db, '-i', 'base', '--without-demo=all', '--stop-after-init'], { ERP_DOUBLE_INIT_SECONDS: '0' })
  t.equal(init.code, 0, init.stderr)
  async function serve (): Promise<(model: string, method: string, args: unknown[], kwargs?: Record<string, unknown>) => Promise<unknown>> {
    const port = await freePort()
    const child = spawn(PYTHON, ['-S', DOUBLE, '-c', config, '-d', db, '-p', String(port)], { stdio: 'ignore' })
    t.teardown(() => { child.kill('SIGKILL') })
    const endpoint = `http://127.0.0.1:${port}`
    const deadline = Date.now() + 15_000
    for (;;) {
      try {
        await callOdoo({ endpoint, timeoutMs: 2000 }, 'common', 'version', [])
        break
      } catch (error) {
        if (Date.now() > deadline) throw error
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const uid = await callOdoo({ endpoint, timeoutMs: 5000 }, 'common', 'authenticate', [db, 'admin', 'admin', {}])
    return async (model, method, args, kwargs = {}) => callOdoo({ endpoint, timeoutMs: 5000 }, 'object', 'execute_kw', [db, uid, 'admin', model, method, args, kwargs])
  }
  return { dir, config, db, serve }
}

t.test('neutralize turns every scheduled action and mail server off and sets database.is_neutralized', async (t) => {
  const { config, db, serve } = await database(t)
  let call = await serve()
  await call('ir.mail_server', 'create', [{ name: 'Production SMTP', smtp_host: 'smtp.example.com', smtp_port: 587 }])
  t.ok((await call('ir.cron', 'search_read', [[]], { fields: ['active'] }) as Array<{ active: boolean }>).every((c) => c.active), 'a new database has its scheduled actions on')
  t.same(await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.is_neutralized']]], { fields: ['value'] }), [], 'not neutralized yet')
  const run = await odoo(['neutralize', '-d', db, '-c', config, '--db_host', 'db.example', '--db_user', 'erp_x'])
  t.equal(run.code, 0, run.stderr)
  call = await serve()
  const crons = await call('ir.cron', 'search_read', [[]], { fields: ['name', 'active'] }) as Array<{ active: boolean }>
  t.ok(crons.length >= 2)
  t.ok(crons.every((c) => !c.active), 'every scheduled action is off')
  t.same(await call('ir.mail_server', 'search_read', [[]], { fields: ['name', 'active'] }), [{ id: 1, name: 'Production SMTP', active: false }], 'the mail server is off')
  t.same(await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.is_neutralized']]], { fields: ['key', 'value'] }).then((rows) => (rows as Array<{ key: string, value: string }>).map((r) => [r.key, r.value])),
    [['database.is_neutralized', 'true']])
})

t.test('a test can make it fail: non-zero exit with the reason on stderr, the database unchanged', async (t) => {
  const { dir, config, db, serve } = await database(t)
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
