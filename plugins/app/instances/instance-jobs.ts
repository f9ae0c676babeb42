import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { InstanceSpec, Observation, ProvisioningBackend } from '../../../provisioning/backend.ts'
import type { ErpCredentialStore } from '../erp/erp-credentials.ts'
import type { BackendRegistry } from './backend-registry.ts'
import type { ErpDatabasesPort } from './erp-databases-port.ts'
import { Instance, type InstanceState } from './instance.entity.ts'
import { subscriptionSize, tenantQuota } from './instance-resources.ts'
import { ACTIONS, reached, TARGET, type InstanceAction } from './instance-states.ts'
import type { InstanceTransitions } from './instance-transitions.ts'
import type { InstanceJobData } from './instance-queue.ts'
import { instanceSpec } from './instance-spec.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import { describeFailure, retryingMessage } from './job-failures.ts'

export interface InstanceJobDeps {
  /** The root EntityManager; each job forks a tenant-scoped one. */
  em: EntityManager
  backends: BackendRegistry
  databases: ErpDatabasesPort
  /** Each instance's ERP master and administrator passwords, and whether its database was initialised. */
  credentials: ErpCredentialStore
  /**
   * Once the backend shows a started instance running, before it is reported so: replaces the
   * ERP administrator's default password (or checks the generated one still works). A throw fails
   * the attempt, which is retried; the instance stays in its transitional state meanwhile.
   */
  beforeRunning?: (em: EntityManager, instance: Instance) => Promise<void>
  transitions: InstanceTransitions
  instancesDomain: string
  /** How long start/provision may take to report `running`. */
  readyTimeoutMs: number
  /** How long the backend may report `error` before the attempt is given up (a container can crash once and recover). */
  errorGraceMs?: number
  /** The backends' stop grace period (INSTANCE_STOP_GRACE_SECONDS), named when a stop had to kill the ERP. */
  stopGraceSeconds: number
  pollMs?: number
  log: FastifyBaseLogger
}

/** The instance left the job's state while the job waited (a delete was asked meanwhile). */
class Overtaken extends Error {
  override name = 'Overtaken'
  constructor () { super('Another action took the instance over while this one waited') }
}

/** 128 + SIGKILL: the ERP did not exit within the grace period and was killed. */
const KILLED = 137

/**
 * Carries out one queued action. Idempotent: it acts only while the instance
 * is still in the action's transitional state, and every backend call converges
 * (a retry after a crash finds the container or Deployment and goes on). A
 * failed attempt is retried by pg-boss with backoff; the last one puts the
 * instance in `error` with the reason.
 */
export function createInstanceJobRunner (deps: InstanceJobDeps) {
  const { backends, databases, transitions, log } = deps
  const pollMs = deps.pollMs ?? 250
  const errorGraceMs = deps.errorGraceMs ?? 15_000

  /** Whether the instance is still in `during`: a delete may have overtaken the job. */
  async function stillIn (tenantId: string, uid: string, during: InstanceState): Promise<boolean> {
    const current = await scopedEntityManager(deps.em, tenantId).findOne(Instance, { uid }, { fields: ['state'] })
    return current?.state === during
  }

  async function waitFor (backend: ProvisioningBackend, spec: InstanceSpec, action: InstanceAction, signal: AbortSignal): Promise<Observation> {
    const deadline = Date.now() + deps.readyTimeoutMs
    const targets = TARGET[action]
    let failingSince: number | undefined
    let seen: Observation = { state: 'missing' }
    while (!signal.aborted) {
      seen = await backend.observe(spec)
      if (reached(action, seen)) return seen
      if (!await stillIn(spec.tenantId, spec.instanceId, ACTIONS[action].during)) throw new Overtaken()
      if (seen.state === 'error') {
        failingSince ??= Date.now()
        if (Date.now() - failingSince >= errorGraceMs) break
      } else {
        failingSince = undefined
      }
      if (Date.now() >= deadline) break
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
    throw new Error(`${signal.aborted ? 'Stopped waiting' : `Not ${targets[0]} in time`}: the backend reports ${seen.state}${seen.message ? ` (${seen.message})` : ''}`)
  }

  /** What the backend showed at the end, and for a stop how long the backend's stop call took. */
  type Done = Observation & { stopTookMs?: number }

  async function perform (em: EntityManager, instance: Instance, action: InstanceAction, signal: AbortSignal): Promise<Done> {
    const backend = backends.get(instance.backend)
    const starts = action === 'provision' || action === 'start' || action === 'restart'
    const spec = await instanceSpec(instance, databases, deps.instancesDomain, { credentials: starts })
    if (starts) {
      const secrets = await deps.credentials.ensure(em, instance)
      spec.erp = { masterPassword: secrets.masterPassword, initialise: !secrets.initialised }
    }
    /** Creates and starts; the first time, the ERP's database initialisation runs before (and is recorded). */
    const provision = async (): Promise<void> => {
      await backend.provision(spec)
      if (spec.erp?.initialise === true) await deps.credentials.markInitialised(em, instance)
    }
    switch (action) {
      case 'provision':
        if (backend.ensureTenant !== undefined) {
          await backend.ensureTenant(spec.tenantSubdomain, spec.tenantId, tenantQuota(await subscriptionSize(em, spec.tenantId)))
        }
        await provision()
        break
      case 'start':
      case 'restart': {
        // Resources gone behind our back are recreated rather than reported missing.
        const seen = await backend.observe(spec)
        if (seen.state === 'missing') await provision()
        else if (action === 'start') await backend.start(spec)
        else await backend.restart(spec)
        break
      }
      case 'stop': {
        const began = Date.now()
        await backend.stop(spec)
        const stopTookMs = Date.now() - began
        return { ...await waitFor(backend, spec, action, signal), stopTookMs }
      }
      case 'delete':
        await backend.remove(spec)
        await databases.drop(instance.uid)
        return { state: 'missing' }
    }
    return waitFor(backend, spec, action, signal)
  }

  /**
   * What the record says once the action is done. A stop says when it had to kill
   * the ERP: killed (137) at the end of a stop call that lasted the grace period
   * (Docker's stop waits it out; a container killed earlier by someone else is not "forced").
   */
  function outcome (action: InstanceAction, seen: Done): { status: InstanceState, message: string | null } {
    const rule = ACTIONS[action]
    if (action === 'stop') {
      const forced = seen.exitCode === KILLED && (seen.stopTookMs ?? 0) >= deps.stopGraceSeconds * 1000 - 500
      return { status: rule.done, message: forced ? `forced after ${deps.stopGraceSeconds} s: the ERP did not exit within its grace period and was killed` : null }
    }
    return { status: seen.state === 'missing' ? rule.done : seen.state as InstanceState, message: null }
  }

  /**
   * A delete overtook this job (it was asked while the job worked): what this
   * job made after the delete's removal (a container, a database) goes too.
   */
  async function cleanUpIfDeleted (tenantId: string, instanceId: number, action: InstanceAction, jobLog: FastifyBaseLogger): Promise<boolean> {
    if (action === 'delete') return false
    const em = scopedEntityManager(deps.em, tenantId)
    const instance = await em.findOne(Instance, instanceId, { populate: ['tenant'] })
    if (instance === null || (instance.state !== 'deleting' && instance.state !== 'deleted')) return false
    const spec = await instanceSpec(instance, databases, deps.instancesDomain, { credentials: false })
    await backends.get(instance.backend).remove(spec)
    await databases.drop(instance.uid)
    jobLog.info({ action }, 'A delete overtook the instance job; removed what it left')
    return true
  }

  return async function run (job: JobWithMetadata<InstanceJobData>): Promise<void> {
    const { instanceId, tenantId, action } = job.data
    const jobLog = log.child(jobLogBindings(job)) // every line of this attempt carries job_id and instance_id
    const rule = ACTIONS[action]
    const actor: SystemActor = { kind: 'system', tenantId, job: `instance-${action}` }
    const em = scopedEntityManager(deps.em, tenantId)
    const instance = await em.findOne(Instance, instanceId, { populate: ['tenant'] })
    if (instance === null || instance.state !== rule.during) return
    try {
      const seen = await perform(em, instance, action, job.signal)
      const result = outcome(action, seen)
      if (result.status === 'running' && deps.beforeRunning !== undefined) await deps.beforeRunning(em, instance)
      const moved = await scopedEntityManager(deps.em, tenantId).transactional((tx) => transitions.moveIf(tx, actor, instanceId, [rule.during], { to: rule.done, ...result }))
      if (moved === undefined) await cleanUpIfDeleted(tenantId, instanceId, action, jobLog)
    } catch (error) {
      if (await cleanUpIfDeleted(tenantId, instanceId, action, jobLog)) return
      // The tenant reads the problem in their words; the error itself (hosts, settings) is for this log line.
      const failure = describeFailure(error, action)
      const last = job.retryCount >= job.retryLimit || !failure.retryable
      jobLog.warn({ err: error, action, attempt: job.retryCount + 1, last, retryable: failure.retryable }, 'Instance job attempt failed')
      if (!last) {
        const retrying = retryingMessage(failure, action, job.retryCount + 1, job.retryLimit + 1)
        await scopedEntityManager(deps.em, tenantId).nativeUpdate(Instance, { id: instanceId, state: rule.during }, { statusMessage: retrying })
        throw error
      }
      await scopedEntityManager(deps.em, tenantId).transactional((tx) => transitions.moveIf(tx, actor, instanceId, [rule.during], { to: 'error', message: failure.tenantMessage }))
    }
  }
}
