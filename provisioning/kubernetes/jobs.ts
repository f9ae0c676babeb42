/**
 * One-off work in a namespace as a batch/v1 Job: create it, poll it until it completes, fails or
 * the caller's deadline passes, read its pod's log, delete it with its pods. Generic on purpose
 * (image, command, environment from a Secret, claims mounted): backups, an ERP's first start and
 * a Git sync are all "run this container once, next to the instance, and tell me how it went".
 *
 * A Job runs its pod once (`backoffLimit: 0`, `restartPolicy: Never`): the callers' own jobs
 * already retry, and a second pod would write over what the first one left half done.
 */
import { BatchV1Api, CoreV1Api, type KubeConfig, type V1Affinity, type V1Job, type V1ResourceRequirements } from '@kubernetes/client-node'
import type { ApiCaller } from './api-call.ts'
import { isNotFound, KubernetesApiError } from './api-errors.ts'

export const JOB_CONTAINER = 'main'

export interface JobVolume {
  /** The PersistentVolumeClaim to mount. */
  claim: string
  mountPath: string
  readOnly?: boolean
  /** A directory inside the claim (subPath), instead of its root. */
  subPath?: string
}

export interface JobSpec {
  namespace: string
  name: string
  labels?: Record<string, string>
  image: string
  command: string[]
  env?: Record<string, string>
  /** Every key of these Secrets becomes an environment variable (envFrom). */
  envFromSecrets?: string[]
  volumes?: JobVolume[]
  /** Needed in namespaces whose ResourceQuota tracks compute: a pod without limits is refused. */
  resources?: V1ResourceRequirements
  /** The cluster stops the pod after this long, whoever is still watching. */
  activeDeadlineSeconds?: number
  /** The cluster deletes the finished Job (and its pods) after this long, if nobody did. */
  ttlSecondsAfterFinished?: number
  /** Where the pod may be scheduled, e.g. on the node of the pod whose ReadWriteOnce claim it mounts too. */
  affinity?: V1Affinity
}

export type JobOutcome =
  | { state: 'succeeded' }
  | { state: 'failed', reason: string, message: string }
  /** The caller's deadline passed with the Job still running (or its pod never created). */
  | { state: 'timeout' }
  /** The Job is gone (deleted by someone else, or its namespace). */
  | { state: 'missing' }

export interface KubeJobs {
  /** Creates the Job; `false` when one of that name exists already (a retried caller). */
  create: (spec: JobSpec) => Promise<boolean>
  /** The Job's state now: undefined while it runs. */
  outcome: (namespace: string, name: string) => Promise<JobOutcome | undefined>
  /** Polls `outcome` every `intervalMs` until it is known or `timeoutMs` has passed. */
  wait: (namespace: string, name: string, options: { timeoutMs: number, intervalMs?: number }) => Promise<JobOutcome>
  /** The log of the Job's newest pod ('' when no pod has started). */
  logs: (namespace: string, name: string, options?: { tailLines?: number }) => Promise<string>
  /** Deletes the Job and its pods (Background propagation: batch/v1 orphans pods by default); false when already gone. */
  remove: (namespace: string, name: string) => Promise<boolean>
  /** The Job's uid; undefined when it does not exist. */
  uid: (namespace: string, name: string) => Promise<string | undefined>
  /**
   * Creates (or replaces) a Secret for a Job's `envFromSecrets`: secrets never go into the Job's spec.
   * Owned by the Job (`ownerJob`), it is garbage-collected with it, should its creator die first.
   * The Job's pod waits for a Secret made after the Job (the kubelet retries).
   */
  putSecret: (secret: { namespace: string, name: string, labels?: Record<string, string>, data: Record<string, string>, ownerJob?: { name: string, uid: string } }) => Promise<void>
  /** Deletes a Job's Secret; false when already gone. */
  removeSecret: (namespace: string, name: string) => Promise<boolean>
}

export function jobManifest (spec: JobSpec): V1Job {
  const labels = spec.labels ?? {}
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: spec.name, namespace: spec.namespace, labels },
    spec: {
      backoffLimit: 0,
      ...(spec.activeDeadlineSeconds === undefined ? {} : { activeDeadlineSeconds: spec.activeDeadlineSeconds }),
      ...(spec.ttlSecondsAfterFinished === undefined ? {} : { ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished }),
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          ...(spec.affinity === undefined ? {} : { affinity: spec.affinity }),
          containers: [{
            name: JOB_CONTAINER,
            image: spec.image,
            command: spec.command,
            env: Object.entries(spec.env ?? {}).map(([name, value]) => ({ name, value })),
            envFrom: (spec.envFromSecrets ?? []).map((name) => ({ secretRef: { name } })),
            volumeMounts: (spec.volumes ?? []).map((v, i) => ({ name: `volume-${i}`, mountPath: v.mountPath, readOnly: v.readOnly ?? false, ...(v.subPath === undefined ? {} : { subPath: v.subPath }) })),
            ...(spec.resources === undefined ? {} : { resources: spec.resources })
          }],
          volumes: (spec.volumes ?? []).map((v, i) => ({ name: `volume-${i}`, persistentVolumeClaim: { claimName: v.claim, readOnly: v.readOnly ?? false } }))
        }
      }
    }
  }
}

/** What the Job's conditions say; undefined while none is final. */
export function outcomeOf (job: V1Job): JobOutcome | undefined {
  const conditions = (job.status?.conditions ?? []).filter((c) => c.status === 'True')
  if (conditions.some((c) => c.type === 'Complete')) return { state: 'succeeded' }
  const failed = conditions.find((c) => c.type === 'Failed')
  if (failed !== undefined) return { state: 'failed', reason: failed.reason ?? 'Failed', message: failed.message ?? '' }
  return undefined
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export function createKubeJobs (kubeConfig: KubeConfig, call: ApiCaller): KubeJobs {
  const batch = kubeConfig.makeApiClient(BatchV1Api)
  const core = kubeConfig.makeApiClient(CoreV1Api)

  async function outcome (namespace: string, name: string): Promise<JobOutcome | undefined> {
    try {
      return outcomeOf(await call(`read Job ${namespace}/${name}`, (o) => batch.readNamespacedJob({ name, namespace }, o)))
    } catch (error) {
      if (isNotFound(error)) return { state: 'missing' }
      throw error
    }
  }

  return {
    async create (spec) {
      try {
        await call(`create Job ${spec.namespace}/${spec.name}`, (o) => batch.createNamespacedJob({ namespace: spec.namespace, body: jobManifest(spec) }, o))
        return true
      } catch (error) {
        if (error instanceof KubernetesApiError && error.code === 409 && error.reason === 'AlreadyExists') return false
        throw error
      }
    },
    outcome,
    async wait (namespace, name, { timeoutMs, intervalMs = 1000 }) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const known = await outcome(namespace, name)
        if (known !== undefined) return known
        const left = deadline - Date.now()
        if (left <= 0) return { state: 'timeout' }
        await sleep(Math.min(intervalMs, left))
      }
    },
    async logs (namespace, name, options = {}) {
      const pods = (await call(`list Pods of Job ${namespace}/${name}`, (o) => core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` }, o))).items
      const time = (t: Date | undefined): number => new Date(t ?? 0).getTime()
      const newest = pods.sort((a, b) => time(b.metadata?.creationTimestamp) - time(a.metadata?.creationTimestamp))[0]?.metadata?.name
      if (newest === undefined) return ''
      try {
        return await call(`read log of Pod ${namespace}/${newest}`, (o) => core.readNamespacedPodLog({ name: newest, namespace, container: JOB_CONTAINER, ...(options.tailLines === undefined ? {} : { tailLines: options.tailLines }) }, o))
      } catch (error) {
        // 400: the container has not started (ContainerCreating, image pull): nothing written yet.
        if (isNotFound(error) || (error instanceof KubernetesApiError && error.code === 400)) return ''
        throw error
      }
    },
    async remove (namespace, name) {
      try {
        await call(`delete Job ${namespace}/${name}`, (o) => batch.deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' }, o))
        return true
      } catch (error) {
        if (isNotFound(error)) return false
        throw error
      }
    },
    async uid (namespace, name) {
      try {
        return (await call(`read Job ${namespace}/${name}`, (o) => batch.readNamespacedJob({ name, namespace }, o))).metadata?.uid
      } catch (error) {
        if (isNotFound(error)) return undefined
        throw error
      }
    },
    async putSecret ({ namespace, name, labels = {}, data, ownerJob }) {
      const ownerReferences = ownerJob === undefined ? [] : [{ apiVersion: 'batch/v1', kind: 'Job', name: ownerJob.name, uid: ownerJob.uid }]
      const body = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name, namespace, labels, ownerReferences }, stringData: data }
      try {
        await call(`create Secret ${namespace}/${name}`, (o) => core.createNamespacedSecret({ namespace, body }, o))
      } catch (error) {
        if (!(error instanceof KubernetesApiError && error.code === 409)) throw error
        // A retried caller: the Secret of its first attempt holds what it held then; make it current.
        await call(`delete Secret ${namespace}/${name}`, (o) => core.deleteNamespacedSecret({ name, namespace }, o))
        await call(`create Secret ${namespace}/${name}`, (o) => core.createNamespacedSecret({ namespace, body }, o))
      }
    },
    async removeSecret (namespace, name) {
      try {
        await call(`delete Secret ${namespace}/${name}`, (o) => core.deleteNamespacedSecret({ name, namespace }, o))
        return true
      } catch (error) {
        if (isNotFound(error)) return false
        throw error
      }
    }
  }
}
