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
 * Runs the git CLI without a shell and answers its stdout. The environment is
 * the service's own plus what the caller adds: GIT_SSL_CAINFO and the system's
 * CA settings reach git untouched. Never prompts for credentials.
 */
export async function runGit ({ args, env, signal, watch }: GitRun): Promise<string> {
  return await new Promise((resolve, reject) => {
    // Its own process group: a stop kills git's helpers too (git-remote-https, ssh), which hold the pipes open.
    const child = spawn('git', args, { env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
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
      const text = Buffer.concat(err).toString('utf8').trim().split('\n').filter((line) => line.startsWith('fatal:') || line.startsWith('error:')).join('; ')
      reject(new GitError(text === '' ? `git ${args.find((a) => !a.startsWith('-')) ?? ''} failed (exit ${code})` : text))
    })
  })
}
