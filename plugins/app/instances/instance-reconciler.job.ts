import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { SystemActor } from '../../../lib/actor.ts'
import type { Sql } from '../../../lib/sql.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { Observation } from '../../../provisioning/backend.ts'
import type { BackendRegistry } from './backend-registry.ts'
import type { InstanceState } from './instance.entity.ts'
import { STEADY_INSTANCES, type SteadyInstanceRow } from './instance.queries.ts'
import type { InstanceTransitions } from './instance-transitions.ts'
import { sqlStates, STEADY_STATES } from './instance-states.ts'

export const RECONCILER_JOB = 'instance-reconciler'

export interface ReconcileResult {
  checked: number
  corrected: number
  /** Backends that could not be asked this round (their instances were left as recorded). */
  unreachable: string[]
  /** Instances moved to `error` because they sat in a transitional state whose job had ended. */
  abandoned: number
}

/**
 * What the record should say, given what the backend shows. `starting` (a
 * container the engine is restarting, a rollout in progress) changes nothing
 * yet; a missing instance is an error, since nobody asked for it to go.
 */
export function correction (recorded: InstanceState, seen: Observation): { state: InstanceState, status: InstanceState, message: string | null } | undefined {
  if (seen.state === 'starting') return undefined
  // A stopped instance whose process has exited is as recorded, whatever the exit code (a forced stop exits 137).
  if (recorded === 'stopped' && seen.exitCode !== undefined) return undefined
  const state: InstanceState = seen.state === 'missing' ? 'error' : seen.state
  if (state === recorded) return undefined
  const message = seen.state === 'missing' ? 'Its resources are gone from the backend' : seen.message || null
  return { state, status: state, message: state === 'error' ? message ?? 'The backend reports an error' : null }
}

const SET_SYNCED = `
UPDATE instances AS i SET last_sync_at = now(), status = u.status,
  updated_at = CASE WHEN i.status IS DISTINCT FROM u.status THEN now() ELSE i.updated_at END
FROM unnest($1::bigint[], $2::text[]) AS u(id, status)
WHERE i.id = u.id AND i.state IN (${sqlStates(STEADY_STATES)})`

/**
 * Compares every instance in a steady state with its backend (one list call per
 * backend, per tenant namespace on Kubernetes) and corrects drift: a container
 * killed behind our back becomes `stopped` or `error`. Runs every
 * RECONCILE_SECONDS on one worker replica at a time (a pg-boss schedule);
 * corrections are conditional on the recorded state, so a run now beside it
 * (and instance jobs racing it) change nothing twice.
 */
export function createInstanceReconciler ({ em, sql, backends, transitions, log, failAbandoned, beforeRunning, operationInProgress }: {
  em: EntityManager
  sql: Sql
  backends: BackendRegistry
  transitions: InstanceTransitions
  log: FastifyBaseLogger
  /** Moves instances whose job ended without finishing to `error` (abandoned-instances.ts). */
  failAbandoned: () => Promise<number>
  /** As for the instance jobs: the ERP's default administrator password is replaced (or the generated one checked) before the record says running. */
  beforeRunning?: (row: SteadyInstanceRow) => Promise<void>
  /**
   * A known, bounded operation of ours makes the instance look failing (a module install: the ERP
   * answers nothing, its health check fails, while it reloads): a failing instance is left as
   * recorded meanwhile (install-in-progress.ts).
   */
  operationInProgress?: (row: SteadyInstanceRow) => Promise<boolean>
}) {
  /** correction(), unless the failure seen is an operation of ours in progress. */
  async function correctionFor (row: SteadyInstanceRow, seen: Observation): Promise<ReturnType<typeof correction>> {
    const fix = correction(row.state, seen)
    if (fix?.state !== 'error' || seen.state !== 'error' || operationInProgress === undefined) return fix
    if (!await operationInProgress(row)) return fix
    log.info({ instanceId: row.id, seen: seen.message }, 'The backend shows the instance failing during an operation of ours (a module install): left as recorded')
    return undefined
  }

  async function correct (row: SteadyInstanceRow, fix: ReturnType<typeof correction>): Promise<boolean> {
    if (fix === undefined) return false
    if (fix.state === 'running' && beforeRunning !== undefined) {
      try {
        await beforeRunning(row)
      } catch (error) {
        log.warn({ err: error, instanceId: row.id }, 'The backend shows the instance running, but it is not reported so: its ERP is not secured')
        return false
      }
    }
    const actor: SystemActor = { kind: 'system', tenantId: row.tenant_id, job: RECONCILER_JOB }
    const moved = await scopedEntityManager(em, row.tenant_id).transactional((tx) => transitions.moveIf(tx, actor, Number(row.id), [row.state], {
      to: fix.state,
      status: fix.status,
      message: fix.message,
      title: `Instance ${row.name} found ${fix.state === 'error' ? 'failing' : fix.state} by the reconciler${fix.message ? `: ${fix.message}` : ''}`
    }))
    return moved !== undefined
  }

  async function reconcile (): Promise<ReconcileResult> {
    const rows = await sql<SteadyInstanceRow>({ text: STEADY_INSTANCES, values: [] })
    const result: ReconcileResult = { checked: 0, corrected: 0, unreachable: [], abandoned: await failAbandoned() }
    for (const backend of backends.all()) {
      const mine = rows.filter((row) => row.backend === backend.name)
      if (mine.length === 0) continue
      let seen: Map<string, Observation>
      try {
        seen = await backend.observeAll([...new Set(mine.map((row) => row.tenant_subdomain))])
      } catch (error) {
        result.unreachable.push(backend.name)
        log.warn({ err: error, backend: backend.name }, 'Reconciler could not ask the backend; instances left as recorded')
        continue
      }
      const synced: Array<[number, InstanceState]> = []
      for (const row of mine) {
        const observation = seen.get(row.subdomain) ?? { state: 'missing' }
        const fix = await correctionFor(row, observation)
        if (await correct(row, fix)) result.corrected++
        // What the backend shows, in the record's terms: a correction's state, else the recorded one (or starting).
        synced.push([row.id, fix?.status ?? (observation.state === 'starting' ? 'starting' : row.state)])
        result.checked++
      }
      if (synced.length > 0) {
        await sql({ text: SET_SYNCED, values: [synced.map(([id]) => id), synced.map(([, status]) => status)] })
      }
    }
    if (result.corrected > 0 || result.abandoned > 0) log.info(result, 'Reconciler corrected instance states')
    return result
  }

  return { reconcile }
}

export type InstanceReconciler = ReturnType<typeof createInstanceReconciler>
