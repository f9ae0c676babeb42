/**
 * Server-side defaulting and normalisation, the part that makes "what you read back"
 * differ from "what you sent" on a real cluster: Secret stringData folded into data,
 * the namespace name label, Service cluster IPs, Deployment strategy, pod-spec defaults.
 * Only the common defaults; the full list lives in k8s.io/kubernetes/pkg/apis/* /v1/defaults.go.
 */
import { isObject, type Json, type JsonObject } from './merge.ts'
import type { ResourceType } from './resources.ts'

export interface DefaultsContext {
  allocateClusterIP: () => string
  defaultStorageClass: string | undefined
}

function obj (parent: JsonObject, key: string): JsonObject {
  if (!isObject(parent[key])) parent[key] = {}
  return parent[key] as JsonObject
}

function setDefault (target: JsonObject, key: string, value: Json): void {
  if (target[key] === undefined || target[key] === null) target[key] = value
}

function defaultPodSpec (spec: JsonObject): void {
  setDefault(spec, 'restartPolicy', 'Always')
  setDefault(spec, 'terminationGracePeriodSeconds', 30)
  setDefault(spec, 'dnsPolicy', 'ClusterFirst')
  setDefault(spec, 'securityContext', {})
  setDefault(spec, 'schedulerName', 'default-scheduler')
  for (const list of ['initContainers', 'containers']) {
    const containers = spec[list]
    if (!Array.isArray(containers)) continue
    for (const c of containers) {
      if (!isObject(c)) continue
      const image = typeof c.image === 'string' ? c.image : ''
      const tag = image.includes('@') ? 'digest' : (/:([^/:]+)$/.exec(image)?.[1] ?? 'latest')
      setDefault(c, 'imagePullPolicy', tag === 'latest' ? 'Always' : 'IfNotPresent')
      setDefault(c, 'terminationMessagePath', '/dev/termination-log')
      setDefault(c, 'terminationMessagePolicy', 'File')
      setDefault(c, 'resources', {})
      if (Array.isArray(c.ports)) for (const p of c.ports) if (isObject(p)) setDefault(p, 'protocol', 'TCP')
    }
  }
}

const DEFAULTERS: Record<string, (object: JsonObject, before: JsonObject | undefined, ctx: DefaultsContext) => void> = {
  Pod (object) {
    const spec = obj(object, 'spec')
    defaultPodSpec(spec)
    setDefault(spec, 'serviceAccountName', 'default')
  },
  Namespace (object) {
    const meta = obj(object, 'metadata')
    obj(meta, 'labels')['kubernetes.io/metadata.name'] = meta.name ?? ''
    setDefault(obj(object, 'spec'), 'finalizers', ['kubernetes'])
  },
  Secret (object) {
    setDefault(object, 'type', 'Opaque')
    if (isObject(object.stringData)) {
      const data = obj(object, 'data')
      for (const [k, v] of Object.entries(object.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64')
    }
    delete object.stringData
  },
  Service (object, before, ctx) {
    const spec = obj(object, 'spec')
    setDefault(spec, 'type', 'ClusterIP')
    setDefault(spec, 'sessionAffinity', 'None')
    if (Array.isArray(spec.ports)) {
      for (const p of spec.ports) {
        if (!isObject(p)) continue
        setDefault(p, 'protocol', 'TCP')
        setDefault(p, 'targetPort', p.port ?? null)
      }
    }
    if (spec.type === 'ExternalName') return
    const previous = isObject(before?.spec) ? before.spec.clusterIP : undefined
    setDefault(spec, 'clusterIP', typeof previous === 'string' ? previous : ctx.allocateClusterIP())
    setDefault(spec, 'clusterIPs', [spec.clusterIP ?? null])
    setDefault(spec, 'ipFamilies', ['IPv4'])
    setDefault(spec, 'ipFamilyPolicy', 'SingleStack')
    setDefault(spec, 'internalTrafficPolicy', 'Cluster')
  },
  PersistentVolumeClaim (object, before, ctx) {
    const spec = obj(object, 'spec')
    setDefault(spec, 'volumeMode', 'Filesystem')
    const previous = isObject(before?.spec) ? before.spec.storageClassName : undefined
    if (previous !== undefined) setDefault(spec, 'storageClassName', previous)
    else if (before === undefined && ctx.defaultStorageClass !== undefined) setDefault(spec, 'storageClassName', ctx.defaultStorageClass)
    if (isObject(before?.spec) && before.spec.volumeName !== undefined) setDefault(spec, 'volumeName', before.spec.volumeName)
  },
  Deployment (object) {
    const spec = obj(object, 'spec')
    setDefault(spec, 'replicas', 1)
    setDefault(spec, 'revisionHistoryLimit', 10)
    setDefault(spec, 'progressDeadlineSeconds', 600)
    const strategy = obj(spec, 'strategy')
    setDefault(strategy, 'type', 'RollingUpdate')
    if (strategy.type === 'RollingUpdate') {
      const rolling = obj(strategy, 'rollingUpdate')
      setDefault(rolling, 'maxUnavailable', '25%')
      setDefault(rolling, 'maxSurge', '25%')
    }
    const template = obj(spec, 'template')
    if (isObject(template.spec)) defaultPodSpec(template.spec)
  },
  /** The selector and the template's labels are generated from the uid (manualSelector is not supported). */
  Job (object, before) {
    const meta = obj(object, 'metadata')
    const spec = obj(object, 'spec')
    setDefault(spec, 'parallelism', 1)
    setDefault(spec, 'completions', 1)
    setDefault(spec, 'backoffLimit', 6)
    setDefault(spec, 'completionMode', 'NonIndexed')
    setDefault(spec, 'suspend', false)
    setDefault(spec, 'podReplacementPolicy', 'TerminatingOrFailed')
    const uid = String(meta.uid ?? '')
    const template = obj(spec, 'template')
    if (before === undefined) {
      setDefault(spec, 'selector', { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } })
      const templateMeta = obj(template, 'metadata')
      Object.assign(obj(templateMeta, 'labels'), { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': meta.name ?? '', 'controller-uid': uid, 'job-name': meta.name ?? '' })
      if (!isObject(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...(templateMeta.labels as JsonObject) }
    }
    if (isObject(template.spec)) defaultPodSpec(template.spec)
  }
}

/** Mutates `object` (already carrying its name/namespace); `before` is the stored object on updates. */
export function applyDefaults (type: ResourceType, object: JsonObject, before: JsonObject | undefined, ctx: DefaultsContext): void {
  DEFAULTERS[type.kind]?.(object, before, ctx)
}
