/**
 * metrics-server's API (`metrics.k8s.io/v1beta1` PodMetrics, what `kubectl top pod` reads) for
 * the simulated pods: a pod whose container runs has metrics; its usage is what the test set
 * (default zero). With metrics-server "not installed" the whole group answers the API server's
 * 404 Status, as a cluster without the APIService does. Every object served is checked against
 * the PodMetrics shape first (a malformed one is a bug of the fake: 500).
 */
import type { ApiResponse } from './api-request.ts'
import type { JsonObject } from './merge.ts'
import type { SimPod } from './pods.ts'
import { parseQuantity } from './quantity.ts'
import { parseLabelSelector } from './selectors.ts'
import { failure, methodNotAllowed, noRoute } from './status.ts'

export const METRICS_GROUP_PATH = '/apis/metrics.k8s.io/v1beta1'
/** metrics-server's default resolution: usage is averaged over this window. */
const WINDOW = '15s'

export interface ContainerUsage { cpu: string, memory: string }

function checkQuantity (what: string, value: unknown): void {
  const number = parseQuantity(value)
  if (typeof value !== 'string' || !Number.isFinite(number) || number < 0) throw new TypeError(`${what} must be a non-negative resource quantity string (e.g. 250m, 300Mi), got ${JSON.stringify(value)}`)
}

/** The PodMetrics shape (k8s.io/metrics/pkg/apis/metrics/v1beta1): throws on anything else. */
export function validatePodMetrics (object: JsonObject): void {
  const meta = object.metadata as JsonObject | undefined
  if (typeof meta?.name !== 'string' || typeof meta.namespace !== 'string') throw new TypeError('PodMetrics needs metadata.name and metadata.namespace')
  if (typeof object.timestamp !== 'string' || Number.isNaN(Date.parse(object.timestamp))) throw new TypeError('PodMetrics.timestamp must be an RFC 3339 time')
  if (typeof object.window !== 'string' || !/^\d+(ms|s|m)$/.test(object.window)) throw new TypeError('PodMetrics.window must be a duration')
  if (!Array.isArray(object.containers)) throw new TypeError('PodMetrics.containers must be a list')
  for (const container of object.containers as JsonObject[]) {
    if (typeof container.name !== 'string' || container.name === '') throw new TypeError('every container metric needs a name')
    const usage = container.usage as JsonObject | undefined
    checkQuantity(`${container.name}: usage.cpu`, usage?.cpu)
    checkQuantity(`${container.name}: usage.memory`, usage?.memory)
  }
}

export class PodMetricsApi {
  /** Whether metrics-server is installed (its APIService registered and available). */
  installed = true
  #usage = new Map<string, ContainerUsage>()

  /** Usage for a pod, or every pod of a deployment; per container optionally. */
  setUsage (namespace: string, podOrDeployment: string, usage: ContainerUsage, container = ''): void {
    checkQuantity('cpu', usage.cpu)
    checkQuantity('memory', usage.memory)
    this.#usage.set(`${namespace}/${podOrDeployment}/${container}`, { cpu: usage.cpu, memory: usage.memory })
  }

  #usageOf (pod: SimPod, container: string): ContainerUsage {
    for (const owner of [pod.name, pod.deployment]) {
      for (const c of [container, '']) {
        const found = this.#usage.get(`${pod.namespace}/${owner}/${c}`)
        if (found !== undefined) return found
      }
    }
    return { cpu: '0', memory: '0' }
  }

  render (pod: SimPod, now: Date): JsonObject {
    const spec = (pod.template.spec ?? {}) as JsonObject
    const containers = (Array.isArray(spec.containers) ? spec.containers : []) as JsonObject[]
    const labels = ((pod.template.metadata as JsonObject | undefined)?.labels ?? {}) as JsonObject
    const object: JsonObject = {
      kind: 'PodMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: pod.name, namespace: pod.namespace, labels: { ...labels, 'pod-template-hash': pod.hash }, creationTimestamp: now.toISOString() },
      timestamp: now.toISOString(),
      window: WINDOW,
      containers: containers.map((c) => ({ name: String(c.name), usage: { ...this.#usageOf(pod, String(c.name)) } }))
    }
    validatePodMetrics(object)
    return object
  }

  /** GET …/pods (all namespaces), …/namespaces/<ns>/pods[/<name>], with labelSelector. */
  handle (method: string, path: string, query: URLSearchParams, pods: (namespace?: string) => SimPod[], now: Date): ApiResponse {
    if (!this.installed) throw noRoute()
    const match = /^\/apis\/metrics\.k8s\.io\/v1beta1(?:\/namespaces\/([^/]+))?\/pods(?:\/([^/]+))?$/.exec(path)
    if (match === null) throw noRoute()
    if (method !== 'GET') throw methodNotAllowed(`the server does not allow this method on the requested resource (${method.toLowerCase()} pods.metrics.k8s.io)`)
    const [, namespace, name] = match
    // A pod has metrics once its container runs (metrics-server scrapes running containers only).
    const running = pods(namespace).filter((pod) => pod.ready || pod.failing === 'CrashLoopBackOff')
    if (name !== undefined) {
      const pod = running.find((p) => p.name === name)
      if (pod === undefined) throw failure(404, `podmetrics.metrics.k8s.io "${name}" not found`, { name, group: 'metrics.k8s.io', kind: 'pods' })
      return { code: 200, body: this.render(pod, now) }
    }
    const selects = parseLabelSelector(query.get('labelSelector'))
    const items = running.map((pod) => this.render(pod, now))
      .filter((item) => selects((item.metadata as JsonObject).labels as Record<string, string>))
      .map(({ kind: _k, apiVersion: _a, ...rest }) => rest)
    return { code: 200, body: { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items } }
  }
}
