/**
 * The resource types the fake API server serves, as the real one describes them
 * in discovery (/api/v1, /apis/<group>/<version>). Adding a plain kind is one entry.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { Job } from 'kubernetes-models/batch/v1/Job'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress'
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim'
import { Pod } from 'kubernetes-models/v1/Pod'
import { ResourceQuota } from 'kubernetes-models/v1/ResourceQuota'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'

export type KubeObject = Record<string, any> & { apiVersion?: string, kind?: string, metadata?: Record<string, any> }

export interface ResourceType {
  kind: string
  /** '' for the core group. */
  group: string
  version: string
  /** The path segment: `deployments`. */
  plural: string
  singular: string
  namespaced: boolean
  shortNames: string[]
  /** Sub-resources served, as discovery lists them (`deployments/status`). */
  subresources: string[]
  /** metadata.generation is set and bumped on spec changes (as the apps and networking strategies do). */
  hasGeneration: boolean
  /** Writes to the main resource keep the stored `status` (it has a status sub-resource). */
  hasStatus: boolean
  /** Pods are synthesised from Deployments: read-only here. */
  readOnly: boolean
  /** kubernetes-models schema check; throws with ajv `errors`. */
  validateSchema: (object: KubeObject) => void
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update']
const READ_VERBS = ['get', 'list']

function schema (Model: new (data: any) => { validate: () => void }): (object: KubeObject) => void {
  return (object) => new Model(object).validate()
}

function type (partial: Omit<ResourceType, 'singular' | 'shortNames' | 'subresources' | 'hasGeneration' | 'hasStatus' | 'readOnly'> & Partial<ResourceType>): ResourceType {
  return { singular: partial.kind.toLowerCase(), shortNames: [], subresources: [], hasGeneration: false, hasStatus: false, readOnly: false, ...partial }
}

export const RESOURCE_TYPES: ResourceType[] = [
  type({ kind: 'Namespace', group: '', version: 'v1', plural: 'namespaces', namespaced: false, shortNames: ['ns'], subresources: ['status'], hasStatus: true, validateSchema: schema(Namespace) }),
  type({ kind: 'ConfigMap', group: '', version: 'v1', plural: 'configmaps', namespaced: true, shortNames: ['cm'], validateSchema: schema(ConfigMap) }),
  type({ kind: 'PersistentVolumeClaim', group: '', version: 'v1', plural: 'persistentvolumeclaims', namespaced: true, shortNames: ['pvc'], subresources: ['status'], hasStatus: true, validateSchema: schema(PersistentVolumeClaim) }),
  type({ kind: 'Pod', group: '', version: 'v1', plural: 'pods', namespaced: true, shortNames: ['po'], subresources: ['log', 'status'], hasStatus: true, readOnly: true, validateSchema: schema(Pod) }),
  type({ kind: 'ResourceQuota', group: '', version: 'v1', plural: 'resourcequotas', namespaced: true, shortNames: ['quota'], subresources: ['status'], hasStatus: true, validateSchema: schema(ResourceQuota) }),
  type({ kind: 'Secret', group: '', version: 'v1', plural: 'secrets', namespaced: true, validateSchema: schema(Secret) }),
  type({ kind: 'Service', group: '', version: 'v1', plural: 'services', namespaced: true, shortNames: ['svc'], subresources: ['status'], hasStatus: true, validateSchema: schema(Service) }),
  type({ kind: 'Deployment', group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, shortNames: ['deploy'], subresources: ['scale', 'status'], hasGeneration: true, hasStatus: true, validateSchema: schema(Deployment) }),
  type({ kind: 'Job', group: 'batch', version: 'v1', plural: 'jobs', namespaced: true, subresources: ['status'], hasGeneration: true, hasStatus: true, validateSchema: schema(Job) }),
  type({ kind: 'Ingress', group: 'networking.k8s.io', version: 'v1', plural: 'ingresses', namespaced: true, shortNames: ['ing'], subresources: ['status'], hasGeneration: true, hasStatus: true, validateSchema: schema(Ingress) })
]

export function groupVersion (type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`
}

/** `deployments.apps` / `secrets`: how the API server names a resource in messages. */
export function qualifiedResource (type: ResourceType): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`
}

/** `Deployment.apps` / `Secret`: how Invalid messages name a kind. */
export function qualifiedKind (type: ResourceType): string {
  return type.group === '' ? type.kind : `${type.kind}.${type.group}`
}

export function verbsOf (type: ResourceType): string[] {
  return type.readOnly ? READ_VERBS : VERBS
}

export function findByPath (group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural)
}

/** For the inspection helpers: `Deployment`, `deployments` or `deploy`. */
export function findByName (name: string): ResourceType {
  const lower = name.toLowerCase()
  const found = RESOURCE_TYPES.find((t) => t.kind.toLowerCase() === lower || t.plural === lower || t.singular === lower || t.shortNames.includes(lower))
  if (found === undefined) throw new Error(`fake kube-apiserver: unknown kind ${name}`)
  return found
}

export function groupVersions (): Array<{ group: string, version: string }> {
  const seen = new Map<string, { group: string, version: string }>()
  for (const t of RESOURCE_TYPES) seen.set(groupVersion(t), { group: t.group, version: t.version })
  return [...seen.values()]
}
