import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fetchBranch } from '../../../../plugins/app/addon-sources/git-fetch.ts'
import { startGitServer } from '../../../support/git-server.ts'

t.setTimeout(60_000)

async function gitDir (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'git-fetch-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const limits = () => ({ maxBytes: 1024 * 1024, maxFiles: 100, signal: AbortSignal.timeout(20_000) })

t.test('git connects to the address the guard checked, IPv6 as well as IPv4, whatever the name resolves to', async (t) => {
  const git = await startGitServer(t, { listenHost: '::1' })
  const repo = await git.repo('six')
  const commit = await repo.commit({ 'a/__manifest__.py': '{}' })
  const url = new URL(repo.url)
  t.match(await fetchBranch({ url, branch: 'main', address: { address: '::1', family: 6 }, gitDir: await gitDir(t), limits: limits() }), { commit, hostKey: null }, 'pinned to [::1]')
  // `localhost` resolves to 127.0.0.1 here, where nothing listens: only the pinned address can have answered above.
  await t.rejects(fetchBranch({ url, branch: 'main', address: { address: '127.0.0.1', family: 4 }, gitDir: await gitDir(t), limits: limits() }), /Failed to connect|Connection refused|Could not connect/i,
    'pinned to 127.0.0.1, where nothing listens: git does not resolve the name again')
})

t.test('a server that never answers fails the fetch at the deadline', async (t) => {
  const git = await startGitServer(t)
  const repo = await git.repo('slow')
  await repo.commit({ 'a/__manifest__.py': '{}' })
  git.beforeUploadPack = () => new Promise(() => {})
  const started = fetchBranch({ url: new URL(repo.url), branch: 'main', address: { address: '127.0.0.1', family: 4 }, gitDir: await gitDir(t), limits: { ...limits(), signal: AbortSignal.timeout(1000) } })
  await t.rejects(started, { message: 'timed out' })
})
