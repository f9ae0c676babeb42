/**
 * observe: one Deployment read (plus a pod list while it is not rolled out).
 * observeAll: one Deployment list per tenant namespace (plus one pod list in a
 * namespace where something is not rolled out). Listing in a namespace that does
 * not exist answers an empty list, so a missing tenant simply has no instances.
 */
import type { V1Deployment, V1Pod } from '@kubernetes/client-node'
import type { InstanceSpec, Observation } from '../backend.ts'
import type { KubeApi } from './kube-api.ts'
import { ERP_PODS, LABEL, MANAGED_DEPLOYMENTS, namespaceOf, selectorLabels, workloadOf } from './names.ts'
import { judgeDeployment, observationOf } from './rollout.ts'

export interface ObserveOps {
  observe: (spec: Pick<InstanceSpec, 'instanceUid' | 'tenantSubdomain' | 'subdomain'>) => Promise<Observation>
  observeAll: (tenantSubdomains: string[]) => Promise<Map<string, Observation>>
}

/** Namespaces listed at once by observeAll. */
const CONCURRENCY = 4

const selectorText = (labels: Record<string, string>): string => Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',')
const instanceOf = (d: V1Deployment): string | undefined => d.metadata?.labels?.[LABEL.instance]

async function eachLimited<T> (items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items]
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item)
  }
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, worker))
}

export function createObserveOps (api: KubeApi): ObserveOps {
  return {
    async observe (spec) {
      const namespace = namespaceOf(spec.tenantSubdomain)
      const deployment = await api.readDeployment(namespace, workloadOf(spec.subdomain))
      if (deployment === undefined) return { state: 'missing' }
      const pods = judgeDeployment(deployment).podsMayExplain ? await api.listPods(namespace, selectorText(selectorLabels(spec.subdomain))) : undefined
      return observationOf(deployment, pods)
    },

    async observeAll (tenantSubdomains) {
      const result = new Map<string, Observation>()
      await eachLimited([...new Set(tenantSubdomains)], CONCURRENCY, async (tenant) => {
        const namespace = namespaceOf(tenant)
        const deployments = (await api.listDeployments(namespace, MANAGED_DEPLOYMENTS)).filter((d) => instanceOf(d) !== undefined)
        const unsettled = deployments.some((d) => judgeDeployment(d).podsMayExplain)
        const pods: V1Pod[] = unsettled ? await api.listPods(namespace, ERP_PODS) : []
        for (const deployment of deployments) {
          const subdomain = instanceOf(deployment) as string
          const own = pods.filter((p) => p.metadata?.labels?.[LABEL.instance] === subdomain)
          result.set(subdomain, observationOf(deployment, unsettled ? own : undefined))
        }
      })
      return result
    }
  }
}
