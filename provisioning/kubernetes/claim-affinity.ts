/**
 * A ReadWriteOnce claim can be mounted by several pods only on the node where it is attached: a
 * pod that mounts a claim another pod holds must land on that pod's node. A required pod affinity
 * to the holders (topologyKey kubernetes.io/hostname) says so. Without a holder the claim is free,
 * and a required affinity to no pod would never schedule: then none is given.
 */
import type { V1Affinity, V1LabelSelector, V1Pod } from '@kubernetes/client-node'
import type { KubeApi } from './kube-api.ts'

/** `a=b,c in (d,e)`: the query form of a label selector (matchLabels and In expressions). */
export function selectorQuery (selector: V1LabelSelector): string {
  const labels = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => `${key}=${value}`)
  const expressions = (selector.matchExpressions ?? []).map((e) => {
    if (e.operator !== 'In') throw new TypeError(`selectorQuery: only In expressions, not ${e.operator}`)
    return `${e.key} in (${(e.values ?? []).join(',')})`
  })
  return [...labels, ...expressions].join(',')
}

/** Scheduled on a node and not ended or ending: what holds its volumes there (the scheduler ignores ended pods). */
const holdsVolumes = (pod: V1Pod): boolean =>
  pod.metadata?.deletionTimestamp == null && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed'

/** A required affinity to the pods `selector` matches in `namespace`, or nothing when none holds its volumes. */
export async function besidePods (api: KubeApi, namespace: string, selector: V1LabelSelector): Promise<{ affinity?: V1Affinity }> {
  const pods = await api.listPods(namespace, selectorQuery(selector))
  if (!pods.some(holdsVolumes)) return {}
  return { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: selector, topologyKey: 'kubernetes.io/hostname' }] } } }
}

/** A preferred affinity to the pods `selector` matches: their node when the scheduler can, anywhere otherwise. */
export function nearPods (selector: V1LabelSelector): { affinity: V1Affinity } {
  return { affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: selector, topologyKey: 'kubernetes.io/hostname' } }] } } }
}
