/**
 * The synthetic Pods behind simulated Deployments (named `<deployment>-<template hash>-<xxxxx>`,
 * labelled from the template plus `pod-template-hash`); their logs are in pod-logs.ts.
 */
import { clone, isObject, type JsonObject } from './merge.ts'

export interface SimPod {
  name: string
  uid: string
  namespace: string
  deployment: string
  hash: string
  template: JsonObject
  ready: boolean
  /**
   * Set while the deployment is held not ready: the container's waiting reason. CrashLoopBackOff
   * (the default) runs and has logs; any other (ImagePullBackOff …) is Pending without logs.
   */
  failing: string | undefined
  createdAt: string
  resourceVersion: string
  ip: string
}

export function containersOf (pod: SimPod): JsonObject[] {
  const spec = isObject(pod.template.spec) ? pod.template.spec : {}
  return (Array.isArray(spec.containers) ? spec.containers : []).filter(isObject)
}

export function renderPod (pod: SimPod): JsonObject {
  const meta = isObject(pod.template.metadata) ? pod.template.metadata : {}
  const status = pod.ready ? 'True' : 'False'
  const rs = `${pod.deployment}-${pod.hash}`
  const containerStatuses = containersOf(pod).map((c): JsonObject => ({
    name: c.name ?? '',
    image: c.image ?? '',
    imageID: '',
    ready: pod.ready,
    started: pod.ready,
    restartCount: pod.failing === 'CrashLoopBackOff' ? 3 : 0,
    state: (pod.ready
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
      phase: pod.ready || pod.failing === 'CrashLoopBackOff' ? 'Running' : 'Pending',
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
