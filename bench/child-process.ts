/**
 * Each measured server runs in a child process of its own, so that autocannon
 * (in the parent) never shares an event loop with the server it measures.
 *
 * Protocol over the IPC channel: the child sends `{ type: 'ready', port, ... }`
 * once listening; the parent sends `{ type: 'stop' }` and the child closes and
 * exits. A child whose parent goes away (IPC disconnect) closes too. Between
 * the two, the parent may `call` a named handler of the child (e.g. to mint
 * authorization codes before a measured run): `{ type: 'call', id, name, payload }`
 * is answered by `{ type: 'answer', id, result }` or `{ type: 'answer', id, error }`.
 */
import { execFileSync, fork, spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ReadyMessage {
  type: 'ready'
  port: number
  /** Anything else the child reports, e.g. the baseline's bearer token. */
  token?: string
  /** The OAuth client a token-endpoint server has registered for the load. */
  clientId?: string
}

export interface RunningServer {
  url: string
  ready: ReadyMessage
  stop: () => Promise<void>
  /** Runs the child's handler `name` and resolves with its result. */
  call: <T>(name: string, payload: unknown) => Promise<T>
}

export type CallHandlers = Record<string, (payload: any) => Promise<unknown>>

interface AnswerMessage {
  type: 'answer'
  id: number
  result?: unknown
  error?: string
}

const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 10_000

/**
 * The children's stdout: a pipe (a FIFO, so that the child's end blocks as a pipe from a container
 * runtime does) read by a process of its own that throws it away, as a log collector reads
 * `npm start`'s. The app's JSON log lines cost the child its writes to a pipe, measured, and fill
 * no terminal. stderr stays on the terminal, for a child's failures.
 */
function logSink (): { fd: number, handedOver: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'erp-bench-stdout-'))
  const fifo = join(dir, 'stdout')
  execFileSync('mkfifo', [fifo])
  // The reader first: opening a FIFO for writing waits for one. It ends at EOF, when the child has exited.
  spawn('sh', ['-c', 'exec cat "$0" > /dev/null', fifo], { stdio: 'ignore' }).unref()
  const fd = openSync(fifo, 'w')
  return {
    fd,
    handedOver: () => {
      closeSync(fd)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Parent side: starts `file` under the same Node and waits for it to listen. */
export function startServer (file: URL, env: Record<string, string>): Promise<RunningServer> {
  const stdout = logSink()
  const child = fork(file, [], { env: { ...process.env, ...env }, stdio: ['ignore', stdout.fd, 'inherit', 'ipc'] })
  stdout.handedOver()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (child.connected) child.send({ type: 'stop' })
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  const pending = new Map<number, { resolve: (value: any) => void, reject: (error: Error) => void }>()
  let lastCallId = 0
  child.on('message', (message: AnswerMessage) => {
    if (message?.type !== 'answer') return
    const caller = pending.get(message.id)
    pending.delete(message.id)
    if (message.error !== undefined) caller?.reject(new Error(`${file.pathname}: ${message.error}`))
    else caller?.resolve(message.result)
  })
  child.once('exit', (code, signal) => {
    for (const caller of pending.values()) caller.reject(new Error(`${file.pathname} exited (code ${code}, signal ${signal})`))
    pending.clear()
  })
  const call = <T>(name: string, payload: unknown) => new Promise<T>((resolve, reject) => {
    const id = ++lastCallId
    pending.set(id, { resolve, reject })
    child.send({ type: 'call', id, name, payload })
  })

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`${file.pathname} did not report ready within ${START_TIMEOUT_MS / 1000} s`))
    }, START_TIMEOUT_MS)
    child.on('message', (message: ReadyMessage) => {
      if (message?.type !== 'ready') return
      clearTimeout(timer)
      resolve({ url: `http://127.0.0.1:${message.port}`, ready: message, stop, call })
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

/** Child side: reports readiness, answers calls to `handlers`, and runs `close` once when told to stop. */
export function serveUntilStopped (ready: Omit<ReadyMessage, 'type'>, close: () => Promise<void>, handlers: CallHandlers = {}): void {
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
  // Every child tells its CPU time (µs, user + system), for the CPU cost per request of a run, and its RSS (bench/soak.ts).
  const answered: CallHandlers = { cpuMicros: async () => cpuMicros(), rssBytes: async () => process.memoryUsage.rss(), ...handlers }
  process.on('message', (message: { type?: string, id?: number, name?: string, payload?: unknown }) => {
    if (message?.type === 'stop') shutdown()
    if (message?.type === 'call') answer(answered, message.id ?? 0, message.name ?? '', message.payload)
  })
  process.on('disconnect', shutdown)
  process.send({ type: 'ready', ...ready })
}

function cpuMicros (): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

function answer (handlers: CallHandlers, id: number, name: string, payload: unknown): void {
  const handler = handlers[name]
  const running = handler === undefined ? Promise.reject(new Error(`no handler named "${name}"`)) : handler(payload)
  running.then(
    (result) => process.send?.({ type: 'answer', id, result }),
    (error: unknown) => process.send?.({ type: 'answer', id, error: error instanceof Error ? error.stack ?? error.message : String(error) })
  )
}
