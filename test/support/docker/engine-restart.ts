/**
 * Stops and starts the machine's Docker engine the way a service manager does (SIGTERM to dockerd,
 * then the same command line again). Every container of the engine stops with it, so only the
 * proofs in test/proofs/ use this, run on their own after `npm test` (.ci/proofs.sh).
 * Needs root and a dockerd that wrote /var/run/docker.pid (as .ci/docker.sh starts it).
 */
import { spawn } from 'node:child_process'
import { openSync, readFileSync } from 'node:fs'
import Docker from 'dockerode'

const PID_FILE = '/var/run/docker.pid'

function runningDockerd (): { pid: number, argv: string[] } | string {
  if (process.getuid?.() !== 0) return 'not root'
  let pid: number
  try { pid = Number(readFileSync(PID_FILE, 'utf8').trim()) } catch { return `no ${PID_FILE}` }
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '')
    return argv.length > 0 ? { pid, argv } : `dockerd (pid ${pid}) has no command line`
  } catch {
    return `dockerd (pid ${pid}) is not running`
  }
}

/** Why the engine cannot be restarted here, or undefined when it can. */
export function engineRestartUnavailable (): string | undefined {
  const found = runningDockerd()
  return typeof found === 'string' ? found : undefined
}

const gone = (pid: number) => { try { process.kill(pid, 0); return false } catch { return true } }

/** SIGTERM to dockerd; resolves once it has exited, with the function that starts it again. */
export async function stopEngine (): Promise<() => Promise<void>> {
  const found = runningDockerd()
  if (typeof found === 'string') throw new Error(`cannot restart the Docker engine: ${found}`)
  process.kill(found.pid, 'SIGTERM')
  const deadline = Date.now() + 60_000
  while (!gone(found.pid)) {
    if (Date.now() > deadline) throw new Error(`dockerd (pid ${found.pid}) did not exit within 60 s of SIGTERM`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return async () => {
    const log = openSync('/tmp/dockerd.log', 'a')
    const [command, ...args] = found.argv
    spawn(command!, args, { detached: true, stdio: ['ignore', log, log] }).unref()
    const docker = new Docker()
    const until = Date.now() + 60_000
    for (;;) {
      try { await docker.ping(); return } catch {}
      if (Date.now() > until) throw new Error('dockerd did not answer within 60 s of its restart (see /tmp/dockerd.log)')
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}
