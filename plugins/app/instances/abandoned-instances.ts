/**
 * No instance stays in a transitional state once its job is over. The job's
 * last attempt moves the instance to `error` itself; this catches the cases
 * where that attempt never got to: it expired, its process died on the last
 * retry, its final write failed, or the job was cancelled or purged.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import type { SystemActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { InstanceState } from './instance.entity.ts'
import { actionDuring, TRANSITIONAL_STATES } from './instance-states.ts'
import type { InstanceTransitions } from './instance-transitions.ts'

export const SUPERVISOR_JOB = 'instance-job-supervisor'

interface AbandonedRow {
  /** bigint: a string from pg */
  id: string
  tenant_id: string
  name: string
  state: InstanceState
  /** The state of the instance's latest job (failed, cancelled, completed), null when none is left. */
  job_state: string | null
  job_error: string | null
}

/**
 * Instances in a transitional state with no live job (created, retry, active)
 * in the queue. A request moves the state and sends the job in one
 * transaction, and a job moves the state before it completes, so a live
 * transition always has its job here.
 */
const ABANDONED = `
SELECT i.id, i.tenant_id, i.name, i.state, latest.state AS job_state, latest.output->>'message' AS job_error
FROM instances i
LEFT JOIN LATERAL (
  SELECT j.state::text AS state, j.output FROM pgboss.job j
  WHERE j.name = $1 AND j.data->>'instanceId' = i.id::text
  ORDER BY j.created_on DESC LIMIT 1
) latest ON true
WHERE i.state = ANY($2::text[])
  AND NOT EXISTS (
    SELECT 1 FROM pgboss.job j
    WHERE j.name = $1 AND j.data->>'instanceId' = i.id::text AND j.state IN ('created', 'retry', 'active')
  )`

function reason (row: AbandonedRow): string {
  const action = actionDuring(row.state) ?? (row.state === 'restoring' ? 'restore' : row.state === 'upgrading' ? 'upgrade' : row.state)
  const ended = row.job_state === null ? 'is gone from the queue' : `ended (${row.job_state})`
  const why = row.job_error === null || row.job_error === '' ? '' : `: ${row.job_error}`
  return `The ${action} job ${ended} without finishing${why}`
}

/** Moves every abandoned instance of one queue to `error` with the reason; returns how many it moved. */
export type AbandonedSweep = () => Promise<number>

/** The sweep of one queue's abandoned instances. */
export function createAbandonedInstances ({ em, sql, transitions, queue, states = TRANSITIONAL_STATES }: {
  em: EntityManager
  sql: Sql
  transitions: InstanceTransitions
  /** The pg-boss queue whose jobs (with `instanceId` in their data) carry the instances out of `states`. */
  queue: string
  states?: readonly InstanceState[]
}): AbandonedSweep {
  return async function failAbandoned (): Promise<number> {
    const rows = await sql<AbandonedRow>({ text: ABANDONED, values: [queue, states] })
    let moved = 0
    for (const row of rows) {
      const actor: SystemActor = { kind: 'system', tenantId: row.tenant_id, job: SUPERVISOR_JOB }
      const done = await scopedEntityManager(em, row.tenant_id).transactional((tx) =>
        transitions.moveIf(tx, actor, Number(row.id), [row.state], { to: 'error', message: reason(row) }))
      if (done !== undefined) moved++
    }
    return moved
  }
}
