/**
 * The synthetic Pods behind simulated Deployments (named `<deployment>-<template hash>-<xxxxx>`,
 * labelled from the template plus `pod-template-hash`), and their logs.
 */
import type { ApiRequest, ApiResponse } from './api-request.ts'
import { clone, isObject, type JsonObject } from './merge.ts'
import { badRequest, notFound } from './status.ts'
import type { ResourceType } from './resources.ts'

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

function containersOf (pod: SimPod): JsonObject[] {
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

/** Seeded log text: by pod name or by deployment name (every pod of it), optionally per container. */
export class PodLogs {
  #texts = new Map<string, string>()

  set (namespace: string, podOrDeployment: string, text: string, container = ''): void {
    this.#texts.set(`${namespace}/${podOrDeployment}/${container}`, text)
  }

  #find (pod: SimPod, container: string): string {
    for (const owner of [pod.name, pod.deployment]) {
      for (const c of [container, '']) {
        const text = this.#texts.get(`${pod.namespace}/${owner}/${c}`)
        if (text !== undefined) return text
      }
    }
    return ''
  }

  /** GET …/pods/<name>/log: `container`, `tailLines`, `limitBytes`; errors as the kubelet reports them through the API server. */
  read (podType: ResourceType, pod: SimPod | undefined, req: ApiRequest): ApiResponse {
    if (pod === undefined) throw notFound(podType, req.name ?? '')
    const names = containersOf(pod).map((c) => String(c.name))
    const container = req.query.get('container') ?? (names.length === 1 ? names[0] : undefined)
    if (container === undefined) throw badRequest(`a container name must be specified for pod ${pod.name}, choose one of: [${names.join(' ')}]`)
    if (!names.includes(container)) throw badRequest(`container ${container} is not valid for pod ${pod.name}`)
    if (!pod.ready && pod.failing !== 'CrashLoopBackOff') throw badRequest(`container "${container}" in pod "${pod.name}" is waiting to start: ${pod.failing ?? 'ContainerCreating'}`)
    let text = this.#find(pod, container)
    const tail = req.query.get('tailLines')
    if (tail !== null && /^\d+$/.test(tail)) {
      const lines = text.split('\n')
      if (lines.at(-1) === '') lines.pop()
      const kept = Number(tail) === 0 ? [] : lines.slice(-Number(tail))
      text = kept.length === 0 ? '' : `${kept.join('\n')}${text.endsWith('\n') ? '\n' : ''}`
    }
    const limit = req.query.get('limitBytes')
    if (limit !== null && /^\d+$/.test(limit)) text = Buffer.from(text, 'utf8').subarray(0, Number(limit)).toString('utf8')
    return { code: 200, body: text, contentType: 'text/plain' }
  }
}
