/**
 * The contract double's `odoo -d <db> -u all --stop-after-init` (what a version upgrade runs), with
 * the host's Python as its image runs it, no Docker: the database recorded at the image's version
 * (`ERP_DOUBLE_VERSION`), read back through the JSON-RPC API; and the switch that makes it fail for a
 * test, as Odoo fails on a module (an ERROR line naming it), which changes nothing.
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
  const dir = mkdtempSync(join(tmpdir(), 'erp-double-upgrade-'))
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

const erpVersion = async (call: Awaited<ReturnType<Awaited<ReturnType<typeof database>>['serve']>>) =>
  (await call('ir.config_parameter', 'search_read', [[['key', '=', 'database.erp_version']]], { fields: ['value'] }) as Array<{ value: string }>).map((r) => r.value)

t.test('-u all --stop-after-init records the image\'s version on the database and exits', async (t) => {
  const { config, db, serve } = await database(t)
  const run = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_VERSION: '18.0' })
  t.equal(run.code, 0, run.stderr)
  t.match(run.stderr, /updating modules all of database erp_copy to 18\.0/)
  const call = await serve()
  t.same(await erpVersion(call), ['18.0'], 'the database is at the new version')
  t.ok((await call('ir.cron', 'search_read', [[]], { fields: ['active'] }) as unknown[]).length >= 2, 'its data is still there')
})

t.test('a test can make it fail: an ERROR line naming the module, non-zero exit, the database unchanged', async (t) => {
  const { dir, config, db, serve } = await database(t)
  writeFileSync(join(dir, 'erp-double', 'upgrade-fails'), 'sale_custom: field "x" does not exist\n')
  const run = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_VERSION: '18.0' })
  t.not(run.code, 0)
  t.match(run.stderr, /ERROR erp_copy odoo\.modules\.loading: module sale_custom: field "x" does not exist/)
  rmSync(join(dir, 'erp-double', 'upgrade-fails'))
  const byEnv = await odoo(['-c', config, '-d', db, '-u', 'all', '--stop-after-init'], { ERP_DOUBLE_UPGRADE_FAILS: 'stock_extra: told to fail' })
  t.not(byEnv.code, 0)
  t.match(byEnv.stderr, /module stock_extra: told to fail/, 'or through the environment (a container\'s)')
  const call = await serve()
  t.same(await erpVersion(call), [], 'not upgraded')
})
