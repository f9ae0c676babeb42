/**
 * The contract double's module uninstall, as real Odoo 17's (ir_module.py button_uninstall): the
 * server-wide modules and a module that is not installed are refused; downstream_dependencies
 * names what depends on a module, directly or through others; button_immediate_uninstall takes
 * those along (why the control plane refuses first), takes its time with a reload that answers
 * nothing, and the module's groups go with it. The double runs as a local process (python3, the
 * interpreter its image carries), not in a container, through the control plane's own adapter.
 */
import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { callOdoo } from '../../../provisioning/erp/odoo-rpc.ts'
import { createOdooAdapter } from '../../../provisioning/erp/odoo-adapter.ts'
import { contract, faultMessage } from './image.ts'

const PYTHON = process.env.PYTHON ?? '/usr/bin/python3'
const DOUBLE = fileURLToPath(new URL('./odoo_double.py', import.meta.url))
const timing = { ERP_DOUBLE_INIT_SECONDS: '0', ERP_DOUBLE_INSTALL_SECONDS: '1.2', ERP_DOUBLE_RELOAD_SECONDS: '0.6' }

async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The double on a fresh data directory: `-i base` of database `shop`, then the server on a free port. */
async function startDouble (t: Test): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'erp-double-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env = { ...process.env, ...timing }
  const init = spawnSync(PYTHON, [DOUBLE, '-d', 'shop', '-i', 'base', '--without-demo=all', '--stop-after-init', '--data-dir', dataDir], { env, encoding: 'utf8' })
  if (init.status !== 0) throw new Error(`-i base failed: ${init.stderr}`)
  const port = await freePort()
  const server = spawn(PYTHON, [DOUBLE, '-d', 'shop', '--data-dir', dataDir, '-p', String(port)], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  server.stderr.on('data', (chunk: Buffer) => { log += chunk.toString() })
  t.teardown(() => { server.kill('SIGTERM') })
  const endpoint = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  while (true) {
    try {
      await callOdoo({ endpoint, timeoutMs: 1000 }, 'common', 'version', [])
      return endpoint
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the double did not start: ${log}`, { cause: error })
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

t.test('the double as a process', async (t) => {
  const endpoint = await startDouble(t)
  const erp = createOdooAdapter({ endpoint, timeoutMs: 10_000, database: 'shop', adminPassword: contract.initialDatabase.adminPassword })
  const idOf = async (name: string): Promise<number> => (await erp.listModules([name]))[0]?.id ?? 0
  const states = async (names: string[]) => Object.fromEntries((await erp.listModules(names)).map((m) => [m.name, m.state]))
  const groupIds = async (): Promise<number[]> => (await callOdoo({ endpoint, timeoutMs: 5000 }, 'object', 'execute_kw',
    ['shop', 2, 'admin', 'res.groups', 'search_read', [[]], { fields: ['id'] }]) as Array<{ id: number }>).map((g) => g.id)

  t.test('uninstall refuses the server-wide modules and what is not installed', async (t) => {
    await t.rejects(erp.uninstallModule(await idOf('base')), { faultName: 'odoo.exceptions.UserError', message: faultMessage('serverWideUninstall', { modules: 'base' }) })
    await t.rejects(erp.uninstallModule(await idOf('web')), { message: faultMessage('serverWideUninstall', { modules: 'web' }) })
    await t.rejects(erp.uninstallModule(await idOf('contacts')), { message: faultMessage('alreadyUninstalled') })
    t.same(await states(['base', 'web', 'contacts']), { base: 'installed', web: 'installed', contacts: 'uninstalled' })
  })

  t.test('an uninstall takes what depends on the module along, takes its time, and its groups go', async (t) => {
    await erp.installModule(await idOf('contacts'))
    await erp.installModule(await idOf('account'))
    t.same(await states(['mail', 'contacts', 'account']), { mail: 'installed', contacts: 'installed', account: 'installed' })
    const accountGroups = (contract.initialDatabase.modules.find((m) => m.name === 'account')?.groups ?? []).map((g) => g.id)
    const withAccount = await groupIds()
    t.ok(accountGroups.length > 0 && accountGroups.every((id) => withAccount.includes(id)), 'account brought its groups')

    const mail = await idOf('mail')
    t.same((await erp.moduleDependents(mail)).map((m) => m.name).sort(), ['account', 'contacts'], 'downstream_dependencies: both, by id')
    t.same(await erp.moduleDependents(await idOf('contacts')), [], 'nothing depends on contacts')

    const started = Date.now()
    const uninstall = erp.uninstallModule(await idOf('account'))
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.same(await states(['account', 'mail']), { account: 'to remove', mail: 'installed' }, 'while it runs: `to remove`, its dependency untouched')
    await uninstall
    t.ok(Date.now() - started >= 1000, 'the uninstall took its time, the reload included')
    t.same(await states(['account', 'mail', 'contacts']), { account: 'uninstalled', mail: 'installed', contacts: 'installed' })
    const left = await groupIds()
    t.ok(accountGroups.length > 0 && accountGroups.every((id) => !left.includes(id)), 'account\'s groups are gone')

    await erp.uninstallModule(mail)
    t.same(await states(['mail', 'contacts']), { mail: 'uninstalled', contacts: 'uninstalled' }, 'uninstalling mail took contacts along, as Odoo does')
  })
})
