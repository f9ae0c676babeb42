/**
 * A real OpenSSH server for tests: `sshd -D` with a configuration, host key and
 * authorized_keys of its own in a temporary folder, listening on a free port of
 * 127.0.0.1, running as the current user (root in CI; .ci/sshd.sh installs it).
 * git reaches its bare repositories as ssh://root@127.0.0.1:<port>/<folder>/<name>.git
 * (sshd runs `git-upload-pack '<path>'`).
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { tempDir } from '../auth-server/helpers.ts'
import { bareRepo, type TestRepo } from './git-server.ts'

interface Teardown { teardown: (fn: () => unknown) => void }

const run = promisify(execFile)
const SSHD = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((path) => existsSync(path)) ?? 'sshd'

export interface KeyPair {
  /** OpenSSH private key text (no passphrase). */
  privateKey: string
  /** `<type> <base64> <comment>` */
  publicKey: string
}

export async function keyPair (dir: string, name: string): Promise<KeyPair> {
  const file = join(dir, name)
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file])
  return { privateKey: await readFile(file, 'utf8'), publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() }
}

export interface SshServer {
  port: number
  /** The server's public key, `<type> <base64>`. */
  hostKey: string
  /** Lets the key in (appends it to authorized_keys). */
  authorize: (publicKey: string) => Promise<void>
  /** A new bare repository the server serves: its ssh:// URL and `commit`. */
  repo: (name: string) => Promise<TestRepo>
  /** Starts the server again with a new host key (a changed or impostor server); answers it. */
  replaceHostKey: () => Promise<string>
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    }).on('error', reject)
  })
}

async function listening (port: number, exited: () => string | undefined): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const failure = exited()
    if (failure !== undefined) throw new Error(`sshd exited: ${failure}`)
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) }).on('error', () => resolve(false))
    })
    if (up) return
    if (attempt > 200) throw new Error('sshd did not listen')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export async function startSshServer (t: Teardown): Promise<SshServer> {
  // The privilege-separation folder sshd requires when started as root (the package's service would create it).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const dir = await tempDir(t)
  const port = await freePort()
  const authorized = join(dir, 'authorized_keys')
  await writeFile(authorized, '', { mode: 0o600 })
  let generation = 0
  let stop: (() => Promise<void>) | undefined

  async function start (): Promise<string> {
    await stop?.()
    const hostKeyName = `host_key_${++generation}`
    const host = await keyPair(dir, hostKeyName)
    const config = join(dir, 'sshd_config')
    await writeFile(config, [
      `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, hostKeyName)}`, `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`, 'StrictModes no', 'PubkeyAuthentication yes', 'PasswordAuthentication no',
      'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password', 'UsePAM no', `AllowUsers ${userInfo().username}`, ''
    ].join('\n'))
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] })
    let log = ''
    let exit: string | undefined
    child.stderr.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-4000) })
    const closed = new Promise<void>((resolve) => child.on('close', (code, signal) => { exit = `${code ?? signal}: ${log}`; resolve() }))
    stop = async () => {
      if (exit === undefined) child.kill('SIGTERM')
      await closed
    }
    await listening(port, () => exit)
    return host.publicKey.split(' ').slice(0, 2).join(' ')
  }

  const server: SshServer = {
    port,
    hostKey: await start(),
    authorize: async (publicKey) => { await writeFile(authorized, `${publicKey}\n`, { flag: 'a' }) },
    repo: async (name) => {
      const bare = join(dir, 'srv', `${name}.git`)
      const commit = await bareRepo(bare, join(dir, 'work', name))
      return { url: `ssh://${userInfo().username}@127.0.0.1:${port}${bare}`, commit }
    },
    replaceHostKey: async () => {
      server.hostKey = await start()
      return server.hostKey
    }
  }
  t.teardown(async () => { await stop?.() })
  return server
}
