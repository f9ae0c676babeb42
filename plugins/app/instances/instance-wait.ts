/**
 * Waiting for the backend to show an instance where a lifecycle step sent it (instance-lifecycle.ts):
 * polled up to the ready bound, with a grace for transient `error` reports (a container can crash
 * once and recover), and given up at once when the instance left the state its job holds it in.
 */
import type { EntityManager } from '@mikro-orm/postgresql'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { InstanceSpec, Observation, ProvisioningBackend } from '../../../provisioning/backend.ts'
import { Instance, type InstanceState } from './instance.entity.ts'
import { reached } from './instance-states.ts'

/**
 * Where a wait goes: the ERP `running`; `stopped` after a stop we asked for (any exit is a stop);
 * `idle`, the ERP not running at all, a container made but never started included (a restore
 * stops the instance, or makes it without starting it, before it loads the data).
 */
export type WaitTarget = 'running' | 'stopped' | 'idle'

/**
 * The ERP is not running: stopped, missing, ended, or a container made but never started (Docker
 * reports that one `starting`, "created", as it would be a moment before a first start).
 */
export const idle = (seen: Observation): boolean => seen.state === 'stopped' || seen.state === 'missing' || seen.exitCode !== undefined ||
  (seen.state === 'starting' && seen.message === 'created')

const REACHED: Record<WaitTarget, (seen: Observation) => boolean> = {
  running: (seen) => reached('start', seen),
  stopped: (seen) => reached('stop', seen),
  idle
}

/** How a failed wait names its target: "Not running in time", "Not stopped in time". */
const NAMED: Record<WaitTarget, string> = { running: 'running', stopped: 'stopped', idle: 'stopped' }

/** The instance left the job's state while the job waited (a delete was asked meanwhile, or the job was given up). */
export class Overtaken extends Error {
  override name = 'Overtaken'
  constructor () { super('Another action took the instance over while this one waited') }
}

export interface WaitOptions {
  /** The state the caller holds the instance in (an action's transitional state, `restoring`): once it is left, the wait ends with Overtaken. */
  during: InstanceState
  /** The job's signal: an aborted job stops waiting. */
  signal: AbortSignal
}

export interface InstanceWaitDeps {
  /** The root EntityManager; the overtaken check reads the instance through a tenant-scoped fork. */
  em: EntityManager
  /** How long a start may take to report `running` (and a stop to report it stopped). */
  readyTimeoutMs: number
  /** How long the backend may report `error` before the wait is given up. */
  errorGraceMs?: number
  pollMs?: number
}

export type WaitFor = (backend: ProvisioningBackend, spec: InstanceSpec, target: WaitTarget, options: WaitOptions) => Promise<Observation>

/** Polls `observe` until `target`; what the backend showed then, or an Error naming what it reports. */
export function createWaitFor (deps: InstanceWaitDeps): WaitFor {
  const pollMs = deps.pollMs ?? 250
  const errorGraceMs = deps.errorGraceMs ?? 15_000

  /** Whether the instance is still in `during`: a delete may have overtaken the job. */
  async function stillIn (tenantId: string, uid: string, during: InstanceState): Promise<boolean> {
    const current = await scopedEntityManager(deps.em, tenantId).findOne(Instance, { uid }, { fields: ['state'] })
    return current?.state === during
  }

  return async function waitFor (backend, spec, target, { during, signal }) {
    const deadline = Date.now() + deps.readyTimeoutMs
    let failingSince: number | undefined
    let seen: Observation = { state: 'missing' }
    while (!signal.aborted) {
      seen = await backend.observe(spec)
      if (REACHED[target](seen)) return seen
      if (!await stillIn(spec.tenantId, spec.instanceUid, during)) throw new Overtaken()
      if (seen.state === 'error') {
        failingSince ??= Date.now()
        if (Date.now() - failingSince >= errorGraceMs) break
      } else {
        failingSince = undefined
      }
      if (Date.now() >= deadline) break
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
    throw new Error(`${signal.aborted ? 'Stopped waiting' : `Not ${NAMED[target]} in time`}: the backend reports ${seen.state}${seen.message ? ` (${seen.message})` : ''}`)
  }
}
