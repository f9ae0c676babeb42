import type { EntityManager } from '@mikro-orm/postgresql'
import type { FastifyBaseLogger } from 'fastify'
import type { JobWithMetadata } from 'pg-boss'
import type { SystemActor } from '../../../lib/actor.ts'
import { scopedEntityManager } from '../../../database/tenancy.ts'
import type { Observation } from '../../../provisioning/backend.ts'
import { Instance, type InstanceState } from './instance.entity.ts'
import { createInstanceLifecycle, type InstanceLifecycleDeps } from './instance-lifecycle.ts'
import { ACTIONS, type InstanceAction } from './instance-states.ts'
import type { InstanceTransitions } from './instance-transitions.ts'
import type { InstanceJobData } from './instance-actions.queue.ts'
import { jobLogBindings } from '../../../lib/job-log.ts'
import { describeFailure, retryingMessage } from './job-failures.ts'

/** The lifecycle's needs (backends, databases, ERP credentials, the step before running, the waits' bounds) and the job's own. */
export interface InstanceJobDeps extends InstanceLifecycleDeps {
  transitions: InstanceTransitions
  /** The backends' stop grace period (INSTANCE_STOP_GRACE_SECONDS), named when a stop had to kill the ERP. */
  stopGraceSeconds: number
  log: FastifyBaseLogger
}

/** 128 + SIGKILL: the ERP did not exit within the grace period and was killed. */
const KILLED = 137

/**
 * Carries out one queued action through the instance lifecycle (instance-lifecycle.ts).
 * Idempotent: it acts only while the instance is still in the action's transitional state, and
 * every backend call converges (a retry after a crash finds the container or Deployment and goes
 * on). A failed attempt is retried by pg-boss with backoff; the last one puts the instance in
 * `error` with the reason.
 */
export function createInstanceJobRunner (deps: InstanceJobDeps) {
  const { transitions, log } = deps
  const lifecycle = createInstanceLifecycle(deps)

  /** What the backend showed at the end, and for a stop how long the backend's stop call took. */
  type Done = Observation & { stopTookMs?: number }

  async function perform (em: EntityManager, instance: Instance, action: InstanceAction, signal: AbortSignal): Promise<Done> {
    lifecycle.backendOf(instance) // a backend not configured here fails the attempt before anything is made
    const starts = action === 'provision' || action === 'start' || action === 'restart'
    const spec = await lifecycle.specOf(em, instance, starts ? 'start' : 'reach')
    const waiting = { during: ACTIONS[action].during, signal }
    switch (action) {
      case 'provision':
        await lifecycle.provision(em, instance, spec, { ensureTenant: true })
        break
      case 'start':
      case 'restart':
        await lifecycle.start(em, instance, spec, { restart: action === 'restart' })
        break
      case 'stop': {
        const stopTookMs = await lifecycle.stop(instance, spec)
        return { ...await lifecycle.waitFor(instance, spec, 'stopped', waiting), stopTookMs }
      }
      case 'delete':
        await lifecycle.remove(instance, spec)
        return { state: 'missing' }
    }
    return lifecycle.waitFor(instance, spec, 'running', waiting)
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
    await lifecycle.remove(instance, await lifecycle.specOf(em, instance, 'reach'))
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
      if (result.status === 'running') await lifecycle.beforeRunning(em, instance)
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
