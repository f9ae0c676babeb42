import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}

export interface Running {
  child: ChildProcess
  output: () => string
  exited: Promise<number | null>
}

/**
 * Runs `node server.ts` (or another long-running entry point) the way `npm start` does, with only
 * the given environment. `group`: as a terminal runs it, the leader of its own process group (so a
 * test can signal the group, as Ctrl-C does), with the authorization server child unless the
 * environment says otherwise.
 */
export function startServer (env: Record<string, string>, script = 'server.ts', options: { group?: boolean } = {}): Running {
  const group = options.group === true
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    detached: group,
    // The auth server child would contend for AUTH_PORT across parallel tests: a test that wants it says so.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: group ? 'info' : 'warn', ...(group ? {} : { AUTH_SERVER_PROCESS: 'false' }), ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout?.on('data', (chunk) => { output += String(chunk) })
  child.stderr?.on('data', (chunk) => { output += String(chunk) })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Polls until the URL answers 200 (or the process dies, or time runs out). */
export async function waitForReady (url: string, running: Running, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let dead = false
  running.exited.then(() => { dead = true })
  while (Date.now() < deadline && !dead) {
    try {
      if ((await fetch(url)).status === 200) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`not ready at ${url}; output:\n${running.output()}`)
}

export async function portIsOpen (port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) })
    return true
  } catch (error) {
    return !String((error as { cause?: { code?: string } }).cause?.code).includes('ECONNREFUSED')
  }
}

export interface CliRun { code: number | null, stdout: string, stderr: string }

/** Runs one of the project's commands (`ops/support.ts`, …) with only the environment given. */
export function runCli (script: string, args: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['pipe', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (chunk) => { stdout += String(chunk) })
    child.stderr?.on('data', (chunk) => { stderr += String(chunk) })
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, stdout, stderr }))
    child.stdin?.end(stdin)
  })
}
