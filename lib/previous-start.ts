/**
 * A start of the service right after Ctrl-C finds the previous one still
 * stopping: its port is still taken and its embedded PostgreSQL is about to go.
 * The stopping process says so in DATA_DIR; the new start waits for it (one
 * line), instead of attaching to a database that is going away.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'

const fileIn = (dataDir: string) => resolve(dataDir, 'stopping.pid')

/** Called as the drain begins; the mark goes when this process exits. */
export function markStopping (dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(fileIn(dataDir), `${process.pid}\n`)
    process.once('exit', () => { clearMark(dataDir) })
  } catch {}
}

function clearMark (dataDir: string): void {
  try {
    if (stoppingPid(dataDir) === process.pid) rmSync(fileIn(dataDir), { force: true })
  } catch {}
}

function stoppingPid (dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(fileIn(dataDir), 'utf8').trim(), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Whether a process with this id exists (one of another user's counts: EPERM). */
export function isAlive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Resolves once no earlier process of this DATA_DIR is stopping (at once when
 * none is). `say` gets one line when there is one to wait for; false when it is
 * still there after `timeoutMs`.
 */
export async function waitForPreviousStop (dataDir: string, say: (line: string) => void, timeoutMs = 60_000): Promise<boolean> {
  const pid = stoppingPid(dataDir)
  if (pid === undefined || pid === process.pid) return true
  if (!isAlive(pid)) {
    rmSync(fileIn(dataDir), { force: true })
    return true
  }
  say(`The previous start of this service (pid ${pid}) is still stopping; waiting for it to finish.`)
  const deadline = Date.now() + timeoutMs
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return true
}
