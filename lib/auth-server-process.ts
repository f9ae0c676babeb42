import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

// The sources run as .ts (npm start), the build as .js (npm run start:prod).
const SCRIPT = fileURLToPath(new URL(`../auth-server/server.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url))

export interface AuthServerProcess {
  /** Resolves with the auth server's URL once it listens (rejects if its first start fails). */
  listening: Promise<string>
  /**
   * The URL the running child reported it listens on (its own word, over IPC);
   * undefined while it starts, after it died, and until a restarted one reports.
   */
  url: () => string | undefined
  stop: () => Promise<void>
}

/**
 * Runs the authorization server (auth-server/server.ts) as a child process of
 * the portal, for `npm start`: restarted with backoff if it dies, stopped with
 * the portal. In production it can run as its own deployment instead
 * (AUTH_SERVER_PROCESS=false).
 */
export function startAuthServerProcess ({ env, log }: {
  env: Record<string, string>
  log: (message: string) => void
}): AuthServerProcess {
  let child: ChildProcess | undefined
  let url: string | undefined
  let stopping = false
  let restarts = 0
  let settle: { resolve: (url: string) => void, reject: (error: Error) => void } | undefined
  const listening = new Promise<string>((resolve, reject) => { settle = { resolve, reject } })
  listening.catch(() => {}) // reported through the log as well

  function spawn (): void {
    const started = Date.now()
    child = fork(SCRIPT, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.on('message', (message: { listening?: string }) => {
      if (typeof message?.listening !== 'string') return
      url = message.listening
      restarts = 0
      settle?.resolve(message.listening)
      settle = undefined
    })
    child.on('exit', (code, signal) => {
      child = undefined
      url = undefined
      if (stopping) return
      if (settle !== undefined && Date.now() - started < 5000 && restarts >= 3) {
        settle.reject(new Error(`the auth server exited during start-up (${signal ?? code})`))
        settle = undefined
      }
      const delay = Math.min(30_000, 500 * 2 ** restarts++)
      log(`auth server exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`)
      setTimeout(() => { if (!stopping) spawn() }, delay).unref()
    })
  }
  spawn()

  return {
    listening,
    url: () => url,
    async stop () {
      stopping = true
      const running = child
      if (running === undefined || running.exitCode !== null) return
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve())
        // Closing the IPC channel is the stop the child obeys (it ignores group signals while connected).
        if (running.connected) running.disconnect()
        else running.kill('SIGTERM')
      })
    }
  }
}
