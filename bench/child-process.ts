/**
 * Each measured server runs in a child process of its own, so that autocannon
 * (in the parent) never shares an event loop with the server it measures.
 *
 * Protocol over the IPC channel: the child sends `{ type: 'ready', port, ... }`
 * once listening; the parent sends `{ type: 'stop' }` and the child closes and
 * exits. A child whose parent goes away (IPC disconnect) closes too.
 */
import { fork } from 'node:child_process'

export interface ReadyMessage {
  type: 'ready'
  port: number
  /** Anything else the child reports, e.g. the baseline's bearer token. */
  token?: string
}

export interface RunningServer {
  url: string
  ready: ReadyMessage
  stop: () => Promise<void>
}

const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 10_000

/** Parent side: starts `file` under the same Node and waits for it to listen. */
export function startServer (file: URL, env: Record<string, string>): Promise<RunningServer> {
  const child = fork(file, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (child.connected) child.send({ type: 'stop' })
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`${file.pathname} did not report ready within ${START_TIMEOUT_MS / 1000} s`))
    }, START_TIMEOUT_MS)
    child.on('message', (message: ReadyMessage) => {
      if (message?.type !== 'ready') return
      clearTimeout(timer)
      resolve({ url: `http://127.0.0.1:${message.port}`, ready: message, stop })
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${file.pathname} exited before it was ready (code ${code}, signal ${signal})`))
    })
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

/** Child side: reports readiness, and runs `close` once when told to stop. */
export function serveUntilStopped (ready: Omit<ReadyMessage, 'type'>, close: () => Promise<void>): void {
  if (process.send === undefined) throw new Error('this file is started by bench/run.ts (it needs an IPC channel)')
  let closing = false
  const shutdown = () => {
    if (closing) return
    closing = true
    close().then(() => process.exit(0), (error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  }
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') shutdown()
  })
  process.on('disconnect', shutdown)
  process.send({ type: 'ready', ...ready })
}
