/**
 * The contract double run with the host's Python as its image runs it, no Docker: for the tests of
 * its one-off commands (neutralize, upgrade), which run it once to the end and then serve the
 * database to read the result back through the JSON-RPC API.
 */
import type { Test } from 'tap'
import { execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { callOdoo } from '../../../provisioning/erp/odoo-rpc.ts'

const DOUBLE = fileURLToPath(new URL('./odoo_double.py', import.meta.url))
const PYTHON = process.env.PYTHON ?? 'python3'

export function odoo (args: string[], env: Record<string, string> = {}): Promise<{ code: number, stderr: string }> {
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

/**
 * A data folder and config, a database initialised in it by the double's own `-i base`; `serve`
 * runs the server on a free port until the test ends and answers a caller of `execute_kw` as admin.
 */
export async function localDatabase (t: Test, prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `erp-double-${prefix}-`))
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

export type OdooCall = Awaited<ReturnType<Awaited<ReturnType<typeof localDatabase>>['serve']>>
