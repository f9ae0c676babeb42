/**
 * The synthetic Pods behind simulated Deployments (named `<deployment>-<template hash>-<xxxxx>`,
 * labelled from the template plus `pod-template-hash`) and Jobs (`<job>-<xxxxx>`, labelled from
 * the template, which carries `job-name` and `controller-uid`); their logs are in pod-logs.ts.
 */
import { clone, isObject, type JsonObject } from './merge.ts'

export interface SimPod {
  name: string
  uid: string
  namespace: string
  /** The owning Deployment's name, or the Job's (log seeding looks the pod up by it). */
  deployment: string
  hash: string
  /** Set for a Job's pod: its owner and how far its one container got. */
  job?: JobPodState
  template: JsonObject
  ready: boolean
  /**
   * Set while the deployment is held not ready: the container's waiting reason. CrashLoopBackOff
   * (the default) runs and has logs; any other (ImagePullBackOff …) is Pending without logs.
   */
  failing: string | undefined
  /** The container runs but its readiness probe fails (the ERP's database not initialised, or reloading): Running, not Ready. */
  unready?: boolean
  createdAt: string
  resourceVersion: string
  ip: string
}

export interface JobPodState {
  uid: string
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed'
  exitCode?: number
  /** Terminated reason (`Completed`, `Error`, `DeadlineExceeded` …). */
  reason?: string
  finishedAt?: string
}

/** Whether the kubelet has logs for the pod's containers (a started container, running or terminated). */
export function hasLogs (pod: SimPod): boolean {
  if (pod.job !== undefined) return pod.job.phase !== 'Pending'
  return pod.ready || (pod.unready === true && pod.failing === undefined) || pod.failing === 'CrashLoopBackOff'
}

export function containersOf (pod: SimPod): JsonObject[] {
  const spec = isObject(pod.template.spec) ? pod.template.spec : {}
  return (Array.isArray(spec.containers) ? spec.containers : []).filter(isObject)
}

function renderJobPod (pod: SimPod, job: JobPodState): JsonObject {
  const meta = isObject(pod.template.metadata) ? pod.template.metadata : {}
  const running = job.phase === 'Running'
  const ended = job.phase === 'Succeeded' || job.phase === 'Failed'
  const state: JsonObject = running
    ? { running: { startedAt: pod.createdAt } }
    : ended
      ? { terminated: { exitCode: job.exitCode ?? 0, reason: job.reason ?? 'Completed', startedAt: pod.createdAt, finishedAt: job.finishedAt ?? pod.createdAt, containerID: `containerd://${pod.uid.replaceAll('-', '')}` } }
      : { waiting: { reason: 'ContainerCreating' } }
  const condition = (type: string, ok: boolean): JsonObject => ({ type, status: ok ? 'True' : 'False', lastTransitionTime: pod.createdAt, ...(ended && !ok ? { reason: 'PodCompleted' } : {}) })
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.name,
      generateName: `${pod.deployment}-`,
      namespace: pod.namespace,
      uid: pod.uid,
      resourceVersion: pod.resourceVersion,
      creationTimestamp: pod.createdAt,
      labels: clone(isObject(meta.labels) ? meta.labels : {}),
      ...(isObject(meta.annotations) ? { annotations: clone(meta.annotations) } : {}),
      ...(job.uid === '' ? {} : { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: pod.deployment, uid: job.uid, controller: true, blockOwnerDeletion: true }] })
    },
    spec: { ...clone(isObject(pod.template.spec) ? pod.template.spec : {}), nodeName: 'fake-node-1' },
    status: {
      phase: job.phase,
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: pod.createdAt },
        { type: 'Initialized', status: 'True', lastTransitionTime: pod.createdAt },
        condition('ContainersReady', running),
        condition('Ready', running)
      ],
      hostIP: '10.0.0.10',
      podIP: pod.ip,
      podIPs: [{ ip: pod.ip }],
      startTime: pod.createdAt,
      qosClass: 'BestEffort',
      containerStatuses: containersOf(pod).map((c): JsonObject => ({
        name: c.name ?? '', image: c.image ?? '', imageID: '', ready: running, started: running, restartCount: 0, state
      }))
    }
  }
}

export function renderPod (pod: SimPod): JsonObject {
  if (pod.job !== undefined) return renderJobPod(pod, pod.job)
  const meta = isObject(pod.template.metadata) ? pod.template.metadata : {}
  const status = pod.ready ? 'True' : 'False'
  const rs = `${pod.deployment}-${pod.hash}`
  const containerStatuses = containersOf(pod).map((c): JsonObject => ({
    name: c.name ?? '',
    image: c.image ?? '',
    imageID: '',
    ready: pod.ready,
    started: pod.ready || (pod.unready === true && pod.failing === undefined),
    restartCount: pod.failing === 'CrashLoopBackOff' ? 3 : 0,
    state: (pod.ready || (pod.unready === true && pod.failing === undefined)
      ? { running: { startedAt: pod.createdAt } }
      : { waiting: { reason: pod.failing ?? 'ContainerCreating', ...(pod.failing === 'CrashLoopBackOff' ? { message: 'back-off restarting failed container' } : {}) } }) as JsonObject
  }))
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: pod.name,
      generateName: `${rs}-`,
      namespace: pod.namespace,
      uid: pod.uid,
      resourceVersion: pod.resourceVersion,
      creationTimestamp: pod.createdAt,
      labels: { ...(isObject(meta.labels) ? meta.labels : {}), 'pod-template-hash': pod.hash },
      ...(isObject(meta.annotations) ? { annotations: clone(meta.annotations) } : {}),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: `${pod.uid.slice(0, 24)}${pod.hash.padEnd(12, '0').slice(0, 12)}`, controller: true, blockOwnerDeletion: true }]
    },
    spec: { ...clone(isObject(pod.template.spec) ? pod.template.spec : {}), nodeName: 'fake-node-1' },
    status: {
      phase: pod.ready || (pod.unready === true && pod.failing === undefined) || pod.failing === 'CrashLoopBackOff' ? 'Running' : 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: pod.createdAt },
        { type: 'Initialized', status: 'True', lastTransitionTime: pod.createdAt },
        { type: 'ContainersReady', status, lastTransitionTime: pod.createdAt },
        { type: 'Ready', status, lastTransitionTime: pod.createdAt }
      ],
      hostIP: '10.0.0.10',
      podIP: pod.ip,
      podIPs: [{ ip: pod.ip }],
      startTime: pod.createdAt,
      qosClass: 'BestEffort',
      containerStatuses
    }
  }
}
