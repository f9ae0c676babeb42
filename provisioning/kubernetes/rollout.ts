/**
 * An instance's state from its Deployment, judged as `kubectl rollout status` does:
 * rolled out when the controller has seen the latest generation and every desired
 * replica is updated and available; failed past the progress deadline.
 */
import type { V1Deployment, V1Pod } from '@kubernetes/client-node'
import type { Observation } from '../backend.ts'
import { podsProblem } from './pod-problems.ts'

export interface Judgement {
  observation: Observation
  /** Still on its way: the pods may tell whether it will get there. */
  podsMayExplain: boolean
}

const replicasText = (available: number, desired: number): string => `${available}/${desired} replicas available`

export function judgeDeployment (deployment: V1Deployment): Judgement {
  const desired = deployment.spec?.replicas ?? 1
  const status = deployment.status ?? {}
  const available = status.availableReplicas ?? 0
  const settled = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0)
  if (desired === 0) {
    return available === 0
      ? { observation: { state: 'stopped', message: 'scaled to 0 replicas' }, podsMayExplain: false }
      : { observation: { state: 'running', message: `stopping: ${available} replica(s) still available` }, podsMayExplain: false }
  }
  if (!settled) return { observation: { state: 'starting', message: 'waiting for the deployment controller to see the new spec' }, podsMayExplain: false }
  const updated = status.updatedReplicas ?? 0
  const replicas = status.replicas ?? 0
  if (updated === desired && replicas === desired && available === desired) {
    return { observation: { state: 'running', message: replicasText(available, desired) }, podsMayExplain: false }
  }
  const conditions = status.conditions ?? []
  const progressing = conditions.find((c) => c.type === 'Progressing')
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return { observation: { state: 'error', message: `rollout failed: ${progressing.message ?? 'progress deadline exceeded'}` }, podsMayExplain: true }
  }
  const replicaFailure = conditions.find((c) => c.type === 'ReplicaFailure' && c.status === 'True')
  if (replicaFailure !== undefined) {
    return { observation: { state: 'error', message: `cannot create the pod: ${replicaFailure.message ?? replicaFailure.reason ?? 'ReplicaFailure'}` }, podsMayExplain: false }
  }
  const waiting = updated < desired
    ? `${updated} of ${desired} new replicas updated`
    : replicas > updated ? `${replicas - updated} old replica(s) pending termination` : replicasText(available, desired)
  return { observation: { state: 'starting', message: waiting }, podsMayExplain: true }
}

/** The judgement, sharpened by the pods when it is not settled: a crash loop is an error, a pending pod says why. */
export function observationOf (deployment: V1Deployment, pods: V1Pod[] | undefined): Observation {
  const { observation, podsMayExplain } = judgeDeployment(deployment)
  if (!podsMayExplain || pods === undefined) return observation
  const problem = podsProblem(pods)
  if (problem === undefined) return observation
  if (problem.fatal) return { state: 'error', message: observation.state === 'error' ? `${observation.message}; ${problem.message}` : problem.message }
  return { state: observation.state, message: `${observation.message ?? ''} (${problem.message})` }
}
