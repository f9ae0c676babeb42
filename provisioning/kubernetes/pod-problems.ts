/**
 * Why an instance's pods are not ready, read from their container statuses. The
 * Deployment alone only says so after its progress deadline (10 minutes); a crash
 * loop or a bad image shows on the pod at once.
 */
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node'

/** Waiting reasons that do not resolve by waiting. ErrImagePull is left out: the first failed pull retries, then turns ImagePullBackOff. */
const FATAL_WAITING = new Set([
  'CrashLoopBackOff', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull',
  'CreateContainerConfigError', 'CreateContainerError', 'RunContainerError'
])

export interface PodProblem {
  /** True when the instance will not get ready by itself. */
  fatal: boolean
  message: string
}

function restarts (status: V1ContainerStatus): string {
  const exit = status.lastState?.terminated
  const parts = [
    status.restartCount > 0 ? `restarted ${status.restartCount} times` : '',
    exit === undefined ? '' : `last exit code ${exit.exitCode}${exit.reason === undefined ? '' : ` (${exit.reason})`}`
  ].filter((p) => p !== '')
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`
}

function containerProblem (pod: string, status: V1ContainerStatus): PodProblem | undefined {
  const waiting = status.state?.waiting
  if (waiting?.reason !== undefined) {
    const detail = waiting.message === undefined || waiting.message === '' ? '' : `: ${waiting.message}`
    return { fatal: FATAL_WAITING.has(waiting.reason), message: `pod ${pod}: container ${status.name} is ${waiting.reason}${detail}${restarts(status)}` }
  }
  const ended = status.state?.terminated
  if (ended !== undefined && ended.exitCode !== 0 && status.restartCount > 0) {
    return { fatal: true, message: `pod ${pod}: container ${status.name} exited with code ${ended.exitCode}${restarts(status)}` }
  }
  return undefined
}

function podProblem (pod: V1Pod): PodProblem | undefined {
  const name = pod.metadata?.name ?? 'unknown'
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]
  const problems = statuses.flatMap((s) => containerProblem(name, s) ?? [])
  const fatal = problems.find((p) => p.fatal)
  if (fatal !== undefined) return fatal
  const unschedulable = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')
  if (unschedulable !== undefined) return { fatal: false, message: `pod ${name}: ${unschedulable.reason ?? 'not scheduled'}${unschedulable.message === undefined ? '' : `: ${unschedulable.message}`}` }
  return problems[0]
}

/** The most telling problem among the pods (a fatal one first); terminating pods are left out. */
export function podsProblem (pods: V1Pod[]): PodProblem | undefined {
  const problems = pods.filter((p) => p.metadata?.deletionTimestamp === undefined).flatMap((p) => podProblem(p) ?? [])
  return problems.find((p) => p.fatal) ?? problems[0]
}
