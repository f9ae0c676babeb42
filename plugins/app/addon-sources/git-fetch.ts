/**
 * A shallow fetch of one branch of a registered repository, pinned to the
 * address the outbound guard checked, with caps on size, file count and time.
 * The git directory lives outside the tenant's addons storage; only the
 * checked-out tree is written there (addon-checkout.ts).
 */
import type { LookupAddress } from 'node:dns'
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { GitError, runGit } from './git-run.ts'

export interface FetchLimits {
  maxBytes: number
  maxFiles: number
  signal: AbortSignal
}

export interface Credential { kind: 'token' | 'deploy_key', secret: string }

export interface FetchRequest {
  url: URL
  branch: string
  /** The checked address git must connect to (never a second resolution). */
  address: LookupAddress
  credential?: Credential
  /** ssh: the server key to require (`<type> <base64>`); none: the key the server shows is accepted and answered. */
  hostKey?: string | null
  /** An empty folder for the git directory (and the deploy key file). */
  gitDir: string
  limits: FetchLimits
}

const SAFE = ['-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', 'protocol.ssh.allow=always',
  '-c', 'http.followRedirects=false', '-c', 'core.symlinks=false', '-c', 'core.hooksPath=/dev/null', '-c', 'submodule.recurse=false']

function defaultPort (url: URL): string {
  return url.port !== '' ? url.port : url.protocol === 'ssh:' ? '22' : '443'
}

/** What git is told: https is pinned with curl's resolve list; ssh connects to the address, keyed by the host's name. */
async function connection (request: FetchRequest): Promise<{ url: string, config: string[], env: NodeJS.ProcessEnv }> {
  const { url, address, credential } = request
  const ip = address.family === 6 ? `[${address.address}]` : address.address
  if (url.protocol === 'https:') {
    const env: NodeJS.ProcessEnv = {}
    if (credential?.kind === 'token') {
      // Through the environment, not argv: other users' `ps` never shows it.
      Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${credential.secret}`).toString('base64')}` })
    }
    return { url: url.href, config: ['-c', `http.curloptResolve=${url.hostname}:${defaultPort(url)}:${ip}`], env }
  }
  if (credential?.kind !== 'deploy_key') throw new GitError('an ssh:// source needs a deploy key')
  const keyFile = join(request.gitDir, 'deploy-key')
  await writeFile(keyFile, credential.secret.endsWith('\n') ? credential.secret : `${credential.secret}\n`, { mode: 0o600 })
  await chmod(keyFile, 0o600)
  const pinned = new URL(url.href)
  pinned.hostname = ip
  const knownHosts = join(request.gitDir, 'known_hosts')
  if (request.hostKey != null) await writeFile(knownHosts, `${url.hostname} ${request.hostKey}\n`)
  // -F /dev/null: no configuration file of this host (no ProxyCommand, no other identity) applies.
  const ssh = ['ssh', '-i', keyFile, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', `HostKeyAlias=${url.hostname}`,
    '-o', `StrictHostKeyChecking=${request.hostKey == null ? 'accept-new' : 'yes'}`, '-o', `UserKnownHostsFile=${knownHosts}`,
    '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'UpdateHostKeys=no', '-F', '/dev/null']
  return { url: pinned.href, config: [], env: { GIT_SSH_COMMAND: ssh.join(' ') } }
}

async function packBytes (gitDir: string): Promise<number> {
  const dir = join(gitDir, 'objects', 'pack')
  const names = await readdir(dir).catch(() => [] as string[])
  let total = 0
  for (const name of names) total += (await stat(join(dir, name)).catch(() => ({ size: 0 }))).size
  return total
}

export class SourceTooLarge extends GitError {}

/** What ssh's refusals mean for a source: the deploy key refused, or a server key other than the pinned one. */
export function explainGitFailure (message: string, host: string): string {
  if (/Host key verification failed/.test(message)) {
    return `the ssh host key of ${host} is not the one pinned for this source: if the server's key really changed, set the source's ssh_host_key to the new key (or to null to pin it again) and sync again`
  }
  if (/Permission denied \(/.test(message)) return `the server ${host} refused the deploy key (${message})`
  return message
}

/** The key ssh accepted on first contact (`<type> <base64>`), from its known_hosts file. */
async function acceptedHostKey (gitDir: string): Promise<string | null> {
  const text = await readFile(join(gitDir, 'known_hosts'), 'utf8').catch(() => '')
  const [, type, key] = text.split('\n')[0]?.trim().split(/\s+/) ?? []
  return type === undefined || key === undefined ? null : `${type} ${key}`
}

export interface Fetched {
  commit: string
  /** ssh: the server's key the fetch trusted (the pinned one, or the one first seen). */
  hostKey: string | null
}

/** Fetches the branch's head commit (depth 1) into `gitDir`; answers its id (and, over ssh, the server's key). */
export async function fetchBranch (request: FetchRequest): Promise<Fetched> {
  const { gitDir, limits } = request
  const git = (args: string[], env: NodeJS.ProcessEnv = {}, watch?: () => Promise<void>) => runGit({ args: [...SAFE, '--git-dir', gitDir, ...args], env, signal: limits.signal, watch })
  await runGit({ args: ['init', '--quiet', '--bare', gitDir], env: {}, signal: limits.signal })
  const { url, config, env } = await connection(request)
  const ref = `refs/heads/${request.branch}`
  await runGit({
    args: [...SAFE, ...config, '--git-dir', gitDir, 'fetch', '--quiet', '--depth', '1', '--no-tags', '--no-recurse-submodules', '--end-of-options', url, `+${ref}:refs/source/head`],
    env,
    signal: limits.signal,
    watch: async () => {
      const bytes = await packBytes(gitDir)
      if (bytes > limits.maxBytes) throw new SourceTooLarge(`the repository is larger than the ${limits.maxBytes}-byte limit (over ${bytes} bytes fetched)`)
    }
  }).catch((error: Error) => {
    if (error instanceof GitError && /couldn't find remote ref|not our ref/i.test(error.message)) throw new GitError(`the branch ${request.branch} does not exist in the repository`)
    if (error instanceof GitError && !(error instanceof SourceTooLarge)) throw new GitError(explainGitFailure(error.message, request.url.hostname))
    throw error
  })
  const commit = (await git(['rev-parse', '--verify', '--end-of-options', 'refs/source/head^{commit}'])).trim()
  await checkTreeSize(git, commit, limits)
  return { commit, hostKey: request.url.protocol === 'ssh:' ? await acceptedHostKey(gitDir) : null }
}

/** Counts the tree's files and bytes before anything is checked out: a clone bomb is refused here. */
async function checkTreeSize (git: (args: string[]) => Promise<string>, commit: string, limits: FetchLimits): Promise<void> {
  const listing = await git(['ls-tree', '-r', '-l', '-z', '--end-of-options', commit])
  let files = 0
  let bytes = 0
  for (const entry of listing.split('\0')) {
    if (entry === '') continue
    files++
    const size = Number(entry.split(/\s+/, 4)[3])
    if (Number.isFinite(size)) bytes += size
    if (files > limits.maxFiles) throw new SourceTooLarge(`the repository has more than ${limits.maxFiles} files`)
    if (bytes > limits.maxBytes) throw new SourceTooLarge(`the repository's files are larger than the ${limits.maxBytes}-byte limit`)
  }
}

/** Writes the commit's files into `workTree` (an empty folder). Symbolic links are written as plain files. */
export async function checkoutCommit (gitDir: string, workTree: string, commit: string, signal: AbortSignal): Promise<void> {
  await runGit({ args: [...SAFE, '--git-dir', gitDir, '--work-tree', workTree, 'checkout', '--quiet', '--force', '--detach', commit], env: {}, signal })
}
