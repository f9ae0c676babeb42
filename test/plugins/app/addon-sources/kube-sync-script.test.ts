/**
 * The sync Job's script, run here by a real shell with real git against the local Git server,
 * with the environment the Kubernetes storage gives the Job: it fetches pinned to the given
 * address, honours the caps, switches the checkout with one rename, refuses a module another
 * source provides, and reports through its last log line.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SYNC_SCRIPT } from '../../../../plugins/app/addon-sources/kube-sync-script.ts'
import { pinnedConnection, reportOf } from '../../../../plugins/app/addon-sources/kube-addon-storage.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { manifest } from '../../../support/addon-sources.ts'

t.setTimeout(60_000)

function runScript (env: Record<string, string>): Promise<{ code: number, log: string }> {
  return new Promise((resolve) => {
    // Only what a Job's container would have: the CA file stands in for the image's trust store.
    const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_SSL_CAINFO: process.env.GIT_SSL_CAINFO ?? '' }
    execFile('/bin/sh', ['-c', SYNC_SCRIPT], { env: { ...base, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), log: stdout + stderr })
    })
  })
}

t.test('sync, switch to a new commit, conflicts, caps and removal, as the Job runs them', async (t) => {
  const git = await startGitServer(t)
  const repo = await git.repo('job-addons', { token: 'tok-123' })
  const first = await repo.commit({ 'mods/sale_extra/__manifest__.py': manifest('Sale Extra'), 'mods/sale_extra/a.py': 'V = 1\n', 'mods/notes/readme.txt': 'x' })
  const addons = mkdtempSync(join(tmpdir(), 'job-addons-'))
  t.teardown(() => rmSync(addons, { recursive: true, force: true }))
  const url = new URL(repo.url)
  const env = (extra: Record<string, string> = {}) => ({
    ADDONS: addons, SOURCE_ID: '7', MODE: 'sync', ...pinnedConnection(url, { address: '127.0.0.1', family: 4 }),
    BRANCH: 'main', SUBPATH: 'mods', MAX_BYTES: '1048576', MAX_FILES: '100', TAKEN: '', GIT_TOKEN: 'tok-123', ...extra
  })

  const one = await runScript(env())
  t.equal(one.code, 0, one.log)
  const report = reportOf(one.log)
  t.match(report, { commit: first, skipped: [] })
  t.same((report?.modules as Array<{ name: string }>).map((m) => m.name), ['sale_extra'])
  t.match(Buffer.from((report?.modules as Array<{ manifest: string }>)[0]?.manifest ?? '', 'base64').toString(), /'name': 'Sale Extra'/)
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 1\n')
  t.equal(readlinkSync(join(addons, 'sale_extra')), '.source-7/mods/sale_extra', 'a relative link through the source\'s current link')
  t.notOk(existsSync(join(addons, 'notes')))

  const second = await repo.commit({ 'mods/sale_extra/__manifest__.py': manifest('Sale Extra'), 'mods/sale_extra/a.py': 'V = 2\n', 'mods/new_tool/__manifest__.py': manifest('New Tool') })
  const two = await runScript(env())
  t.match(reportOf(two.log), { commit: second })
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 2\n')
  t.ok(existsSync(join(addons, 'new_tool', '__manifest__.py')))
  t.equal(readdirSync(addons).filter((n) => n.startsWith('.source-7-')).length, 1, 'the older checkout is gone')

  const refused = await runScript(env({ TAKEN: 'other=x new_tool=Shared_addons' }))
  t.not(refused.code, 0)
  t.same(reportOf(refused.log), { error: 'the module new_tool is already provided by the addon source Shared_addons' })
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 2\n', 'a refused sync changes nothing')

  const dropped = await runScript(env({ INSTALLED: 'new_tool=Sales gone_mod=Sales,_Books' }))
  t.not(dropped.code, 0)
  t.same(reportOf(dropped.log), { error: 'the module gone_mod is no longer in the repository but is installed on Sales, Books' }, 'an installed module the commit lacks')
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 2\n', 'and changes nothing')
  t.match(reportOf((await runScript(env({ INSTALLED: 'new_tool=Sales sale_extra=Books' }))).log), { commit: second }, 'installed modules still there: synced')

  t.match(reportOf((await runScript(env({ MAX_FILES: '1' }))).log), { error: 'the repository has more than 1 files' })
  t.match(reportOf((await runScript(env({ GIT_TOKEN: 'wrong' }))).log), { error: /fatal/ })
  t.match(reportOf((await runScript(env({ BRANCH: 'nope' }))).log), { error: 'the branch nope does not exist in the repository' })
  const elsewhere = await runScript(env({ ...pinnedConnection(url, { address: '127.0.0.2', family: 4 }) }))
  t.match(reportOf(elsewhere.log), { error: /fatal: unable to access|Failed to connect|Could not connect/i }, 'git connects to the pinned address only')
  t.equal(readdirSync(addons).filter((n) => n.startsWith('.source-7-')).length, 1, 'failed syncs leave no staging folder')

  const removed = await runScript({ ADDONS: addons, SOURCE_ID: '7', MODE: 'remove' })
  t.same(reportOf(removed.log), { removed: true })
  t.same(readdirSync(addons), [], 'links, the current link and the checkout are gone')
})
