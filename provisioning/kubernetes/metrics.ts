/**
 * Usage of an instance's pods from metrics-server (`metrics.k8s.io/v1beta1` PodMetrics, what
 * `kubectl top pod` reads) and the size of its data claim. A cluster without metrics-server
 * answers 404 for the whole group: that is BackendUnavailableError (served stale, or 503).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node'
import { BackendUnavailableError, type InstanceSpec, type UsageReading } from '../backend.ts'
import type { ApiCaller } from './api-call.ts'
import { isNotFound } from './api-errors.ts'
import type { KubeApi } from './kube-api.ts'
import { dataClaimOf, namespaceOf, selectorLabels } from './names.ts'
import { parseQuantity } from './quantities.ts'

const MB = 1024 * 1024

/** The fields of a PodMetrics object the reading needs. */
export interface PodMetrics {
  metadata?: { name?: string }
  containers?: Array<{ name?: string, usage?: { cpu?: string, memory?: string } }>
}

/** Cores and MB summed over every container of every pod (during a rollout both pods count: both run). */
export function sumPodMetrics (pods: PodMetrics[]): Pick<UsageReading, 'cpuCores' | 'memoryMb'> {
  let cpu = 0
  let memory = 0
  for (const container of pods.flatMap((pod) => pod.containers ?? [])) {
    const cores = parseQuantity(container.usage?.cpu)
    const bytes = parseQuantity(container.usage?.memory)
    if (Number.isFinite(cores)) cpu += cores
    if (Number.isFinite(bytes)) memory += bytes
  }
  return { cpuCores: cpu, memoryMb: memory / MB }
}

export function createKubernetesUsage (kubeConfig: KubeConfig, call: ApiCaller, api: Pick<KubeApi, 'readClaim'>) {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi)

  async function podMetrics (namespace: string, subdomain: string, timeoutMs: number): Promise<PodMetrics[]> {
    const labelSelector = Object.entries(selectorLabels(subdomain)).map(([k, v]) => `${k}=${v}`).join(',')
    try {
      const list = await call(`list PodMetrics in ${namespace}`, (o) => custom.listNamespacedCustomObject({
        group: 'metrics.k8s.io', version: 'v1beta1', namespace, plural: 'pods', labelSelector
      }, o), { timeoutMs, retries: 0 }) as { items?: PodMetrics[] }
      return list.items ?? []
    } catch (error) {
      if (isNotFound(error)) {
        throw new BackendUnavailableError('kubernetes', 'The cluster serves no metrics.k8s.io API (metrics-server is not installed)',
          'install metrics-server in the cluster to see CPU and memory use', { cause: error })
      }
      throw error
    }
  }

  async function claimMb (namespace: string, subdomain: string): Promise<number | null> {
    const claim = await api.readClaim(namespace, dataClaimOf(subdomain))
    const size = parseQuantity(claim?.status?.capacity?.storage ?? claim?.spec?.resources?.requests?.storage)
    return Number.isFinite(size) ? size / MB : null
  }

  return async (spec: Pick<InstanceSpec, 'tenantSubdomain' | 'subdomain'>, options: { running: boolean, timeoutMs: number }): Promise<UsageReading> => {
    const namespace = namespaceOf(spec.tenantSubdomain)
    const [usage, capacity] = await Promise.all([
      options.running ? podMetrics(namespace, spec.subdomain, options.timeoutMs).then(sumPodMetrics) : { cpuCores: 0, memoryMb: 0 },
      claimMb(namespace, spec.subdomain)
    ])
    return { ...usage, volumeMb: null, volumeCapacityMb: capacity }
  }
}
