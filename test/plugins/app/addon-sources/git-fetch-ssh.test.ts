/**
 * ssh:// fetches against a real sshd: the deploy key authenticates, git connects to the checked
 * address (the name in the URL is never resolved), the server's key is pinned on first contact
 * and required afterwards, and the refusals read clearly.
 */
import t from 'tap'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fetchBranch, type FetchRequest } from '../../../../plugins/app/addon-sources/git-fetch.ts'
import { keyPair, startSshServer } from '../../../support/ssh-server.ts'

t.setTimeout(60_000)

async function gitDir (t: { teardown: (fn: () => unknown) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'git-fetch-ssh-test-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

t.test('a deploy key over ssh, pinned to the checked address, the host key pinned on first contact', async (t) => {
  const sshd = await startSshServer(t)
  const keys = await gitDir(t)
  const deploy = await keyPair(keys, 'deploy')
  const stranger = await keyPair(keys, 'stranger')
  await sshd.authorize(deploy.publicKey)
  const repo = await sshd.repo('private-addons')
  const commit = await repo.commit({ 'sale_extra/__manifest__.py': '{}' })
  // A name that resolves nowhere: only the address the guard checked can be connected to.
  const url = new URL(repo.url)
  url.hostname = 'git.addons.invalid'
  const request = async (extra: Partial<FetchRequest> = {}): Promise<FetchRequest> => ({
    url, branch: 'main', address: { address: '127.0.0.1', family: 4 }, credential: { kind: 'deploy_key', secret: deploy.privateKey },
    gitDir: await gitDir(t), limits: { maxBytes: 1024 * 1024, maxFiles: 100, signal: AbortSignal.timeout(20_000) }, ...extra
  })

  const first = await fetchBranch(await request())
  t.same(first, { commit, hostKey: sshd.hostKey }, 'fetched over ssh; the key the server showed is answered for pinning')
  t.same(await fetchBranch(await request({ hostKey: sshd.hostKey })), first, 'a later fetch with the pinned key')

  await t.rejects(fetchBranch(await request({ credential: { kind: 'deploy_key', secret: stranger.privateKey } })),
    { message: /^the server git\.addons\.invalid refused the deploy key \(.*Permission denied \(publickey\)/ }, 'a key the server does not know')
  await t.rejects(fetchBranch(await request({ address: { address: '127.0.0.2', family: 4 } })), /Connection refused|Could not read/i, 'pinned to 127.0.0.2, where nothing listens')

  const pinned = sshd.hostKey
  const replaced = await sshd.replaceHostKey()
  t.not(replaced, pinned)
  await t.rejects(fetchBranch(await request({ hostKey: pinned })),
    { message: /^the ssh host key of git\.addons\.invalid is not the one pinned for this source/ }, 'another server key than the pinned one is refused')
  t.same(await fetchBranch(await request({ hostKey: replaced })), { commit, hostKey: replaced }, 'the new key, once given')
})
