/**
 * Runs one backup-side Job to its end for the backup runner (backup, restore, archive removal):
 * a retried call adopts the Job of its earlier attempt instead of making a second one, a failed
 * Job of an earlier attempt is replaced, and the Job is deleted with its pods once it has ended.
 */
import { OneOffFailedError } from '../one-off-run.ts'
import type { JobSpec, KubeJobs } from './jobs.ts'

export function createJobRunner (jobs: KubeJobs, options: { timeoutMs: number, pollMs: number }) {
  /** The Job's log once it completed; OneOffFailedError (its `output` the end of the pod's log) otherwise. */
  return async function runJob (job: JobSpec): Promise<string> {
    const { namespace, name } = job
    const created = await jobs.create(job)
    if (!created && (await jobs.outcome(namespace, name))?.state === 'failed') {
      await jobs.remove(namespace, name) // a failed Job of an earlier attempt: start afresh
      await jobs.create(job)
    }
    try {
      const outcome = await jobs.wait(namespace, name, { timeoutMs: options.timeoutMs, intervalMs: options.pollMs })
      const log = await jobs.logs(namespace, name, { tailLines: 50 }).catch(() => '')
      if (outcome.state === 'succeeded') return log
      const why = outcome.state === 'failed'
        ? `${outcome.reason}: ${outcome.message}`
        : outcome.state === 'timeout' ? `not finished within ${Math.round(options.timeoutMs / 1000)} s (a pod the tenant quota refuses never starts)` : 'the Job was deleted'
      const tail = log.trim().slice(-800)
      throw new OneOffFailedError(`The ${name} Job in ${namespace} failed (${why})${tail === '' ? '' : `: ${tail}`}`, log)
    } finally {
      await jobs.remove(namespace, name).catch(() => {})
    }
  }
}

/** The last non-empty line of a log. */
export const lastLine = (log: string): string => log.trim().split('\n').pop()?.trim() ?? ''
