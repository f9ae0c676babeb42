import type { FastifyBaseLogger } from 'fastify'
import type { AgentCallsService } from './agent-calls.service.ts'

export const AGENT_CALL_RETENTION_JOB = 'agent-call-retention'
/** Hourly: a call lives AGENT_CALL_RETENTION_DAYS and at most an hour more. */
export const AGENT_CALL_RETENTION_SECONDS = 3600

/** The periodic pass of the agents' audit trail (AGENT_CALL_RETENTION_DAYS); repeat-safe. */
export function createAgentCallRetention ({ calls, log }: { calls: Pick<AgentCallsService, 'prune'>, log: FastifyBaseLogger }) {
  return async function pruneAgentCalls (): Promise<{ calls: number, access: number }> {
    const pruned = await calls.prune()
    if (pruned.calls > 0 || pruned.access > 0) log.info(pruned, 'Agent audit trail pruned')
    return pruned
  }
}
