/**
 * ResourceQuota: usage (`status.used`) and admission for object counts (`count/<resource>`,
 * `pods`, `services`, `secrets`, `configmaps`, `persistentvolumeclaims`), `requests.storage`,
 * and pod compute (`requests.cpu`/`cpu`, `requests.memory`/`memory`, `limits.cpu`, `limits.memory`).
 * Objects over quota are refused with the real 403; pods a Deployment cannot create surface,
 * as on a cluster, only as the Deployment's ReplicaFailure condition.
 */
import { isObject, type JsonObject } from './merge.ts'
import { parseQuantity } from './quantity.ts'
import { RESOURCE_TYPES, findByName, type ResourceType } from './resources.ts'
import { forbidden } from './status.ts'
import { metadataOf, type ObjectStore } from './store.ts'

const LEGACY_COUNTS: Record<string, string> = { pods: 'pods', services: 'services', secrets: 'secrets', configmaps: 'configmaps', persistentvolumeclaims: 'persistentvolumeclaims', resourcequotas: 'resourcequotas' }
const COMPUTE: Record<string, [section: 'requests' | 'limits', resource: 'cpu' | 'memory']> = {
  'requests.cpu': ['requests', 'cpu'], cpu: ['requests', 'cpu'], 'requests.memory': ['requests', 'memory'], memory: ['requests', 'memory'], 'limits.cpu': ['limits', 'cpu'], 'limits.memory': ['limits', 'memory']
}

function countNames (type: ResourceType): string[] {
  const names = [`count/${type.group === '' ? type.plural : `${type.plural}.${type.group}`}`]
  if (type.group === '' && LEGACY_COUNTS[type.plural] !== undefined) names.push(type.plural)
  return names
}

export function formatQuantity (value: number, name: string): string {
  if (name.includes('cpu')) return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`
  for (const [suffix, size] of [['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) if (value !== 0 && value % size === 0) return `${value / size}${suffix}`
  return String(value)
}

function containers (template: JsonObject): JsonObject[] {
  const spec = isObject(template.spec) ? template.spec : {}
  return (Array.isArray(spec.containers) ? spec.containers : []).filter(isObject)
}

function podAmount (template: JsonObject, section: 'requests' | 'limits', resource: string): number {
  return containers(template).reduce((sum, c) => {
    const resources = isObject(c.resources) ? c.resources : {}
    const amounts = isObject(resources[section]) ? resources[section] : {}
    return sum + (amounts[resource] === undefined ? 0 : parseQuantity(amounts[resource]))
  }, 0)
}

function storageOf (object: JsonObject): number {
  const spec = isObject(object.spec) ? object.spec : {}
  const requests = isObject(spec.resources) && isObject(spec.resources.requests) ? spec.resources.requests : {}
  return requests.storage === undefined ? 0 : parseQuantity(requests.storage)
}

export class QuotaTracker {
  readonly #store: ObjectStore
  readonly #podTemplates: (namespace: string) => JsonObject[]

  constructor (store: ObjectStore, podTemplates: (namespace: string) => JsonObject[]) {
    this.#store = store
    this.#podTemplates = podTemplates
  }

  #quotas (namespace: string): Array<{ name: string, hard: Record<string, number> }> {
    return this.#store.list(findByName('ResourceQuota'), namespace).map((e) => {
      const spec = isObject(e.object.spec) && isObject(e.object.spec.hard) ? e.object.spec.hard : {}
      return { name: String(metadataOf(e.object).name), hard: Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, parseQuantity(v)])) }
    })
  }

  /** Current usage of every resource name a quota can track, in a namespace. */
  used (namespace: string): Record<string, number> {
    const used: Record<string, number> = {}
    for (const type of RESOURCE_TYPES.filter((t) => t.namespaced && t.kind !== 'Pod')) {
      for (const name of countNames(type)) used[name] = this.#store.list(type, namespace).length
    }
    const pods = this.#podTemplates(namespace)
    for (const name of countNames(findByName('Pod'))) used[name] = pods.length
    used['requests.storage'] = this.#store.list(findByName('PersistentVolumeClaim'), namespace).reduce((sum, e) => sum + storageOf(e.object), 0)
    for (const [name, [section, resource]] of Object.entries(COMPUTE)) used[name] = pods.reduce((sum, t) => sum + podAmount(t, section, resource), 0)
    return used
  }

  /** `status` of a ResourceQuota: hard as specified, used for the resources it lists. */
  status (quota: JsonObject): JsonObject {
    const hard = isObject(quota.spec) && isObject(quota.spec.hard) ? quota.spec.hard : {}
    const used = this.used(String(metadataOf(quota).namespace))
    return { hard: { ...hard }, used: Object.fromEntries(Object.keys(hard).map((k) => [k, formatQuantity(used[k] ?? 0, k)])) }
  }

  #exceeded (namespace: string, requested: Record<string, number>): string | undefined {
    const used = this.used(namespace)
    for (const quota of this.#quotas(namespace)) {
      const over = Object.keys(requested).filter((k) => quota.hard[k] !== undefined && (used[k] ?? 0) + (requested[k] ?? 0) > (quota.hard[k] ?? 0))
      if (over.length === 0) continue
      const list = (values: Record<string, number>): string => over.map((k) => `${k}=${formatQuantity(values[k] ?? 0, k)}`).join(',')
      return `exceeded quota: ${quota.name}, requested: ${list(requested)}, used: ${list(used)}, limited: ${list(quota.hard)}`
    }
    return undefined
  }

  /** Admission of a create (or a PVC growing): throws the real 403 when over quota. */
  admitObject (type: ResourceType, namespace: string, object: JsonObject, before: JsonObject | undefined): void {
    const requested: Record<string, number> = {}
    if (before === undefined) for (const name of countNames(type)) requested[name] = 1
    if (type.kind === 'PersistentVolumeClaim') requested['requests.storage'] = storageOf(object) - (before === undefined ? 0 : storageOf(before))
    const relevant = Object.fromEntries(Object.entries(requested).filter(([, v]) => v > 0))
    const why = Object.keys(relevant).length === 0 ? undefined : this.#exceeded(namespace, relevant)
    if (why !== undefined) throw forbidden(type, String(metadataOf(object).name), why)
  }

  /** Why a pod from this template would be refused (the ReplicaFailure message), or undefined. */
  refusePod (namespace: string, template: JsonObject, podPrefix: string): string | undefined {
    const missing: string[] = []
    for (const quota of this.#quotas(namespace)) {
      const parts = new Set<string>()
      for (const [name, [section, resource]] of Object.entries(COMPUTE)) {
        if (quota.hard[name] === undefined) continue
        const lacking = containers(template).filter((c) => !(isObject(c.resources) && isObject(c.resources[section]) && c.resources[section][resource] !== undefined)).map((c) => String(c.name))
        if (lacking.length > 0) parts.add(`${section}.${resource} for: ${lacking.join(',')}`)
      }
      if (parts.size > 0) missing.push(`${quota.name}: must specify ${[...parts].sort().join('; ')}`)
    }
    if (missing.length > 0) return `pods "${podPrefix}" is forbidden: failed quota: ${missing.join('; ')}`
    const requested: Record<string, number> = { pods: 1, 'count/pods': 1 }
    for (const [name, [section, resource]] of Object.entries(COMPUTE)) requested[name] = podAmount(template, section, resource)
    const why = this.#exceeded(namespace, Object.fromEntries(Object.entries(requested).filter(([, v]) => v > 0)))
    return why === undefined ? undefined : `pods "${podPrefix}" is forbidden: ${why}`
  }
}
