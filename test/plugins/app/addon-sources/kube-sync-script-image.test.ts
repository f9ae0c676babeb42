/**
 * The Kubernetes sync Job's script run for real in a container of the git image that stands in for
 * alpine/git (build-git-sync-image.sh: busybox's sh and tools, git, ssh), with the environment and
 * the mount the Job gives it: the tenant's addons folder at /addons. The container shares the
 * host's network to reach the local Git servers (https and ssh) at the pinned 127.0.0.1.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SYNC_SCRIPT } from '../../../../plugins/app/addon-sources/kube-sync-script.ts'
import { pinnedConnection, reportOf } from '../../../../plugins/app/addon-sources/kube-addon-storage.ts'
import { manifest } from '../../../support/addon-sources.ts'
import { startGitServer } from '../../../support/git-server.ts'
import { gitSyncTestImage } from '../../../support/git-sync-image.ts'
import { keyPair, startSshServer } from '../../../support/ssh-server.ts'

t.setTimeout(180_000)
const image = await gitSyncTestImage()

function addonsFolder (t: { teardown: (fn: () => unknown) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'job-image-addons-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** `docker run` as the Job's pod: the claim mounted at /addons, the env (Secret values included) given, the script as the command. */
function runJob (addons: string, env: Record<string, string>, mounts: string[] = []): Promise<{ code: number, log: string }> {
  const args = ['run', '--rm', '--network', 'host', '-v', `${addons}:/addons`, ...mounts.flatMap((m) => ['-v', m]),
    ...Object.entries({ ADDONS: '/addons', ...env }).flatMap(([name, value]) => ['-e', `${name}=${value}`]), image, '/bin/sh', '-c', SYNC_SCRIPT]
  return new Promise((resolve) => {
    execFile('docker', args, { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code ?? 1), log: stdout + stderr })
    })
  })
}

t.test('https: modules listed, each sync switched atomically, a failed fetch leaves the old tree', async (t) => {
  const git = await startGitServer(t)
  const repo = await git.repo('job-image', { token: 'tok-img' })
  const first = await repo.commit({ 'mods/sale_extra/__manifest__.py': manifest('Sale Extra'), 'mods/sale_extra/a.py': 'V = 1\n', 'mods/docs/readme.txt': 'x' })
  const addons = addonsFolder(t)
  const caFile = join(addons, '..', `${addons.split('/').pop() ?? 'ca'}-ca.pem`)
  writeFileSync(caFile, git.https.ca)
  t.teardown(() => rmSync(caFile, { force: true }))
  const env = (extra: Record<string, string> = {}) => ({
    SOURCE_ID: '7', MODE: 'sync', ...pinnedConnection(new URL(repo.url), { address: '127.0.0.1', family: 4 }),
    BRANCH: 'main', SUBPATH: 'mods', MAX_BYTES: '1048576', MAX_FILES: '100', TAKEN: '', GIT_TOKEN: 'tok-img', GIT_SSL_CAINFO: '/ca.pem', ...extra
  })
  const job = async (extra: Record<string, string> = {}) => await runJob(addons, env(extra), [`${caFile}:/ca.pem:ro`])

  const one = await job()
  t.equal(one.code, 0, one.log)
  t.match(reportOf(one.log), { commit: first, skipped: [], host_key: '' })
  t.same((reportOf(one.log)?.modules as Array<{ name: string }>).map((m) => m.name), ['sale_extra'], 'the module folders are listed')
  t.equal(readlinkSync(join(addons, 'sale_extra')), '.source-7/mods/sale_extra')
  const firstCheckout = readlinkSync(join(addons, '.source-7'))
  t.match(firstCheckout, new RegExp(`^\\.source-7-${first.slice(0, 12)}-[0-9a-f]{8}$`), 'the current link names the hidden checkout')
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 1\n')
  t.notOk(existsSync(join(addons, 'docs')), 'a folder without a manifest is not linked')

  // A new commit: while the container switches, every read of the module's file sees the old or the new one.
  const second = await repo.commit({ 'mods/sale_extra/__manifest__.py': manifest('Sale Extra'), 'mods/sale_extra/a.py': 'V = 2\n', 'mods/new_tool/__manifest__.py': manifest('New Tool') })
  const seen = new Set<string>()
  let reading = true
  const reader = (async () => {
    while (reading) {
      try {
        seen.add(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'))
      } catch (error) {
        seen.add(`error: ${(error as NodeJS.ErrnoException).code}`)
      }
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const two = await job()
  reading = false
  await reader
  t.equal(two.code, 0, two.log)
  t.match(reportOf(two.log), { commit: second })
  t.same([...seen].sort(), ['V = 1\n', 'V = 2\n'], 'the module folder was the old one or the new one, never missing or half-written')
  const secondCheckout = readlinkSync(join(addons, '.source-7'))
  t.match(secondCheckout, new RegExp(`^\\.source-7-${second.slice(0, 12)}-`), 'the current link points to the new checkout')
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 2\n')
  t.equal(readlinkSync(join(addons, 'new_tool')), '.source-7/mods/new_tool')
  t.same(readdirSync(addons).filter((n) => n.startsWith('.source-7-')), [secondCheckout], 'the old checkout is removed')

  // Failed fetches (a refused token, the server unreachable at the pinned address) leave the tree as it was.
  await repo.commit({ 'mods/sale_extra/__manifest__.py': manifest('Sale Extra'), 'mods/sale_extra/a.py': 'V = 3\n' })
  const before = readdirSync(addons).sort()
  const refused = await job({ GIT_TOKEN: 'wrong' })
  t.not(refused.code, 0)
  t.match(reportOf(refused.log), { error: /fatal/ })
  const unreachable = await job(pinnedConnection(new URL(repo.url), { address: '127.0.0.2', family: 4 }))
  t.match(reportOf(unreachable.log), { error: /Failed to connect|Could not connect|Connection refused/i }, 'the container connects to the pinned address only')
  t.same(readdirSync(addons).sort(), before, 'no staging folder left, no link changed')
  t.equal(readlinkSync(join(addons, '.source-7')), secondCheckout)
  t.equal(readFileSync(join(addons, 'sale_extra', 'a.py'), 'utf8'), 'V = 2\n')

  const removed = await runJob(addons, { SOURCE_ID: '7', MODE: 'remove' })
  t.same(reportOf(removed.log), { removed: true })
  t.same(readdirSync(addons), [], 'the removal Job leaves nothing of the source')
})

t.test('ssh with a deploy key: the first sync reports the host key, a later one requires it', async (t) => {
  const sshd = await startSshServer(t)
  const addons = addonsFolder(t)
  const deploy = await keyPair(addons, 'deploy')
  rmSync(join(addons, 'deploy'))
  rmSync(join(addons, 'deploy.pub'))
  await sshd.authorize(deploy.publicKey)
  const repo = await sshd.repo('job-ssh')
  const commit = await repo.commit({ 'ssh_mod/__manifest__.py': manifest('Ssh Mod') })
  const url = new URL(repo.url)
  url.hostname = 'git.addons.invalid'
  const env = (extra: Record<string, string> = {}) => ({
    SOURCE_ID: '9', MODE: 'sync', ...pinnedConnection(url, { address: '127.0.0.1', family: 4 }),
    BRANCH: 'main', SUBPATH: '', MAX_BYTES: '1048576', MAX_FILES: '100', TAKEN: '', DEPLOY_KEY: deploy.privateKey, SSH_HOST_KEY: '', ...extra
  })

  const first = await runJob(addons, env())
  t.equal(first.code, 0, first.log)
  t.match(reportOf(first.log), { commit, host_key: sshd.hostKey, modules: [{ name: 'ssh_mod' }] }, 'the server\'s key is reported for pinning')
  t.match(reportOf((await runJob(addons, env({ SSH_HOST_KEY: sshd.hostKey }))).log), { commit }, 'the pinned key is accepted')
  const pinned = sshd.hostKey
  await sshd.replaceHostKey()
  const changed = await runJob(addons, env({ SSH_HOST_KEY: pinned }))
  t.match(reportOf(changed.log), { error: /Host key verification failed/ }, 'another server key is refused')
  t.ok(existsSync(join(addons, 'ssh_mod', '__manifest__.py')), 'the old tree stays')
})
