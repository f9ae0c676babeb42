/**
 * The few API operations the backend needs, on the generated clients, each through the
 * caller (timeout, retries, errors). Writes are server-side apply: the generated patch
 * methods send a JSON Patch unless told the apply content type, and apply needs a field
 * manager; `force` takes over fields another writer changed (someone's kubectl edit).
 */
import {
  AppsV1Api, CoreV1Api, NetworkingV1Api, PatchStrategy, setHeaderOptions,
  type ConfigurationOptions, type KubeConfig, type KubernetesObject, type V1Deployment, type V1PersistentVolumeClaim, type V1Pod
} from '@kubernetes/client-node'
import type { ApiCaller, CallPolicy } from './api-call.ts'
import { isNotFound } from './api-errors.ts'

export type AppliedKind = 'Namespace' | 'ResourceQuota' | 'PersistentVolumeClaim' | 'Secret' | 'Service' | 'Deployment' | 'Ingress'
export type RemovableKind = 'Namespace' | 'PersistentVolumeClaim' | 'Secret' | 'Service' | 'Deployment' | 'Ingress'

export interface KubeApi {
  /** Server-side apply with `fieldManager` and force. */
  apply: (object: KubernetesObject, fieldManager: string) => Promise<void>
  /** Deletes; false when it was already gone. */
  remove: (kind: RemovableKind, namespace: string, name: string) => Promise<boolean>
  readDeployment: (namespace: string, name: string) => Promise<V1Deployment | undefined>
  readClaim: (namespace: string, name: string) => Promise<V1PersistentVolumeClaim | undefined>
  /** A merge patch of the requested size only: the rest of a claim's spec is immutable. */
  resizeClaim: (namespace: string, name: string, storage: string, fieldManager: string) => Promise<void>
  listDeployments: (namespace: string, labelSelector: string) => Promise<V1Deployment[]>
  listPods: (namespace: string, labelSelector: string) => Promise<V1Pod[]>
  /** Pods of every namespace (one call) matching `labelSelector`. */
  listPodsEverywhere: (labelSelector: string) => Promise<V1Pod[]>
  /** A bare pod (no controller): created as given; the API's refusals (quota 403 …) are thrown as they come. */
  createPod: (pod: V1Pod) => Promise<V1Pod>
  readPod: (namespace: string, name: string) => Promise<V1Pod | undefined>
  /** Deletes at once (grace period 0: nothing in it needs time to stop); false when it was already gone. */
  removePod: (namespace: string, name: string) => Promise<boolean>
  /** The cheapest call that needs valid credentials (unlike /version, which clusters serve to anyone). */
  listOneNamespace: (policy: Partial<CallPolicy>) => Promise<void>
}

type Send = (name: string, namespace: string, body: KubernetesObject, params: { fieldManager: string, force: true }, options: ConfigurationOptions) => Promise<unknown>
type Remove = (name: string, namespace: string, options: ConfigurationOptions) => Promise<unknown>

export function createKubeApi (kubeConfig: KubeConfig, call: ApiCaller): KubeApi {
  const core = kubeConfig.makeApiClient(CoreV1Api)
  const apps = kubeConfig.makeApiClient(AppsV1Api)
  const networking = kubeConfig.makeApiClient(NetworkingV1Api)
  const applyOptions = (options: ConfigurationOptions): ConfigurationOptions => setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply, options)

  const appliers: Record<AppliedKind, Send> = {
    Namespace: (name, _ns, body, params, o) => core.patchNamespace({ name, body, ...params }, applyOptions(o)),
    ResourceQuota: (name, namespace, body, params, o) => core.patchNamespacedResourceQuota({ name, namespace, body, ...params }, applyOptions(o)),
    PersistentVolumeClaim: (name, namespace, body, params, o) => core.patchNamespacedPersistentVolumeClaim({ name, namespace, body, ...params }, applyOptions(o)),
    Secret: (name, namespace, body, params, o) => core.patchNamespacedSecret({ name, namespace, body, ...params }, applyOptions(o)),
    Service: (name, namespace, body, params, o) => core.patchNamespacedService({ name, namespace, body, ...params }, applyOptions(o)),
    Deployment: (name, namespace, body, params, o) => apps.patchNamespacedDeployment({ name, namespace, body, ...params }, applyOptions(o)),
    Ingress: (name, namespace, body, params, o) => networking.patchNamespacedIngress({ name, namespace, body, ...params }, applyOptions(o))
  }
  const removers: Record<RemovableKind, Remove> = {
    Namespace: (name, _ns, o) => core.deleteNamespace({ name }, o),
    PersistentVolumeClaim: (name, namespace, o) => core.deleteNamespacedPersistentVolumeClaim({ name, namespace }, o),
    Secret: (name, namespace, o) => core.deleteNamespacedSecret({ name, namespace }, o),
    Service: (name, namespace, o) => core.deleteNamespacedService({ name, namespace }, o),
    Deployment: (name, namespace, o) => apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Background' }, o),
    Ingress: (name, namespace, o) => networking.deleteNamespacedIngress({ name, namespace }, o)
  }
  const at = (namespace: string, name: string): string => (namespace === '' ? name : `${namespace}/${name}`)

  async function orMissing<T> (read: Promise<T>): Promise<T | undefined> {
    try {
      return await read
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  return {
    async apply (object, fieldManager) {
      const kind = object.kind as AppliedKind
      const send = appliers[kind]
      if (send === undefined) throw new Error(`kubernetes backend: cannot apply a ${String(object.kind)}`)
      const name = object.metadata?.name ?? ''
      const namespace = object.metadata?.namespace ?? ''
      await call(`apply ${kind} ${at(namespace, name)}`, (o) => send(name, namespace, object, { fieldManager, force: true }, o))
    },
    async remove (kind, namespace, name) {
      const gone = await orMissing(call(`delete ${kind} ${at(namespace, name)}`, (o) => removers[kind](name, namespace, o)))
      return gone !== undefined
    },
    readDeployment: (namespace, name) =>
      orMissing(call(`read Deployment ${at(namespace, name)}`, (o) => apps.readNamespacedDeployment({ name, namespace }, o))),
    readClaim: (namespace, name) =>
      orMissing(call(`read PersistentVolumeClaim ${at(namespace, name)}`, (o) => core.readNamespacedPersistentVolumeClaim({ name, namespace }, o))),
    async resizeClaim (namespace, name, storage, fieldManager) {
      const body = { spec: { resources: { requests: { storage } } } }
      await call(`resize PersistentVolumeClaim ${at(namespace, name)}`, (o) =>
        core.patchNamespacedPersistentVolumeClaim({ name, namespace, body, fieldManager }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o)))
    },
    async listDeployments (namespace, labelSelector) {
      return (await call(`list Deployments in ${namespace}`, (o) => apps.listNamespacedDeployment({ namespace, labelSelector }, o))).items
    },
    async listPods (namespace, labelSelector) {
      return (await call(`list Pods in ${namespace}`, (o) => core.listNamespacedPod({ namespace, labelSelector }, o))).items
    },
    async listPodsEverywhere (labelSelector) {
      return (await call('list Pods in all namespaces', (o) => core.listPodForAllNamespaces({ labelSelector }, o))).items
    },
    async createPod (pod) {
      const namespace = pod.metadata?.namespace ?? ''
      // No retries: a create repeated after a lost answer would make a second pod (generateName).
      return await call(`create Pod in ${namespace}`, (o) => core.createNamespacedPod({ namespace, body: pod }, o), { retries: 0 })
    },
    readPod: (namespace, name) =>
      orMissing(call(`read Pod ${at(namespace, name)}`, (o) => core.readNamespacedPod({ name, namespace }, o))),
    async removePod (namespace, name) {
      const gone = await orMissing(call(`delete Pod ${at(namespace, name)}`, (o) => core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }, o)))
      return gone !== undefined
    },
    async listOneNamespace (policy) {
      await call('list namespaces', (o) => core.listNamespace({ limit: 1 }, o), policy)
    }
  }
}
