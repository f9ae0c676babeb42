import { spawn } from 'node:child_process'

export class GitError extends Error {
  override name = 'GitError'
}

export interface GitRun {
  args: string[]
  env: NodeJS.ProcessEnv
  signal: AbortSignal
  /** Called every 200 ms while git runs; a thrown error stops git and fails the run with it. */
  watch?: () => Promise<void>
}

/**
 * What git (and its helpers: git-remote-https, ssh) may see of the service's
 * environment: the basics, the trust settings and the proxies. Nothing else:
 * the service's secrets (JWT_SECRET, DATABASE_URL, …) never reach them.
 */
export const GIT_ENV_PASSED = [
  'PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR',
  'GIT_SSL_CAINFO', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS',
  'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY'
] as const

export function gitEnvironment (extra: NodeJS.ProcessEnv, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const passed = Object.fromEntries(GIT_ENV_PASSED.flatMap((name) => from[name] === undefined ? [] : [[name, from[name]]]))
  return { ...passed, ...extra, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' }
}

/** The lines of git's (and ssh's) stderr a failure is told by. */
const REPORTED = /^(fatal|error):|Permission denied \(|Host key verification failed/

/**
 * Runs the git CLI without a shell and answers its stdout, with the curated
 * environment above plus what the caller adds (GIT_SSL_CAINFO reaches git).
 * Never prompts for credentials.
 */
export async function runGit ({ args, env, signal, watch }: GitRun): Promise<string> {
  return await new Promise((resolve, reject) => {
    // Its own process group: a stop kills git's helpers too (git-remote-https, ssh), which hold the pipes open.
    const child = spawn('git', args, { env: gitEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let stopped: Error | undefined
    const stop = (reason: Error) => {
      stopped ??= reason
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }
    const onAbort = () => stop(new GitError('timed out'))
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    const timer = watch === undefined
      ? undefined
      : setInterval(() => { watch().catch((error: Error) => stop(error)) }, 200)
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => { if (err.length < 64) err.push(chunk) })
    child.on('error', (error) => stop(error))
    child.on('close', (code) => {
      clearInterval(timer)
      signal.removeEventListener('abort', onAbort)
      if (stopped !== undefined) return reject(stopped)
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'))
      const text = Buffer.concat(err).toString('utf8').trim().split('\n').filter((line) => REPORTED.test(line)).join('; ')
      reject(new GitError(text === '' ? `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed (exit ${code})` : text))
    })
  })
}
