import { setTimeout as sleep } from 'node:timers/promises'
import { scopedEntityManager } from '../database/tenancy.ts'
import { userScope } from '../lib/call-scope.ts'
import type { ToolContext } from './tools/tool.ts'
import type { WatchSubject } from './tools/job-watches.ts'

/** Where a followed job stands: its end state reached or not, a short line for the person, the tool's answer as it is now. */
export interface JobSnapshot {
  done: boolean
  /** e.g. "instance provisioning", "backup running: dumping the database". */
  message: string
  /** The tool's own answer, read again (same shape as its first answer). */
  result: Record<string, unknown>
}

/** What a tool that started a job hands over to be followed: how to read it, and what to poll once the wait runs out. */
export interface JobWatch {
  /** What is followed, as data (a task id carries it). */
  subject: WatchSubject
  poll: { tool: string, arguments: Record<string, unknown> }
  read: (context: ToolContext) => Promise<JobSnapshot>
}

/** The request's progress channel: the client's `progressToken` answered with `notifications/progress` on the call's SSE stream. */
export interface ProgressChannel {
  send: (update: { progress: number, total?: number, message: string }) => Promise<void>
  /** Aborted when the client is gone: nobody waits for the answer any more. */
  signal: AbortSignal
}

export interface FollowOptions {
  maxSeconds: number
  intervalMs?: number
}

/** What the final answer says about the wait: finished, or still running and where to look. */
export interface WaitReport {
  finished: boolean
  seconds: number
  poll?: JobWatch['poll']
  message?: string
}

/**
 * A context that reads the database afresh: a new tenant-scoped EntityManager on each use of
 * `scope.em`, so a poll never answers from the identity map of an earlier read.
 */
function freshContext (context: ToolContext): ToolContext {
  const { app, scope: { actor } } = context
  return { ...context, scope: userScope(app.sql, actor, () => scopedEntityManager(app.orm.em, actor.tenantId)) }
}

/**
 * Follows a started job by reading the state the services already keep (the instance's state,
 * the backup, module or addon source row) every `intervalMs` (and once more at the bound), sending one progress notification
 * per read, until the job reaches its end state or `maxSeconds` pass. Progress counts the reads
 * (1, 2, 3…); the total is known only at the end, when it equals the last progress. Answers the
 * tool's answer as last read (`first`, its answer at the start, if no read succeeded), with `wait` saying whether it finished and, if not, what to poll.
 */
export async function followJob (watch: JobWatch, first: Record<string, unknown>, context: ToolContext, channel: ProgressChannel, options: FollowOptions): Promise<Record<string, unknown>> {
  const intervalMs = options.intervalMs ?? 1000
  const started = Date.now()
  const deadline = started + options.maxSeconds * 1000
  const reader = freshContext(context)
  const seconds = () => Math.round((Date.now() - started) / 100) / 10
  let count = 0
  let last: JobSnapshot | undefined
  try {
    for (;;) {
      last = await watch.read(reader)
      count += 1
      await channel.send(last.done ? { progress: count, total: count, message: last.message } : { progress: count, message: last.message })
      if (last.done) return { ...last.result, wait: { finished: true, seconds: seconds() } satisfies WaitReport }
      const remaining = deadline - Date.now()
      if (remaining <= 0 || channel.signal.aborted) break
      await sleep(Math.min(intervalMs, remaining), undefined, { signal: channel.signal })
    }
  } catch (error) {
    // The client left (abort) or a read failed (e.g. the instance was deleted meanwhile): answer what is known.
    if (!channel.signal.aborted) context.log?.warn({ err: error, tool: watch.poll.tool }, 'Following an MCP job stopped early')
  }
  const waited = seconds()
  const report: WaitReport = {
    finished: false,
    seconds: waited,
    poll: watch.poll,
    message: `${last?.message ?? 'The job'} after ${waited} s; it goes on. Poll ${watch.poll.tool} with ${JSON.stringify(watch.poll.arguments)} until it ends.`
  }
  return { ...(last?.result ?? first), wait: report }
}
