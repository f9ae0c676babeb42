/**
 * A simulated deployment controller + kubelet. Each Deployment gets synthetic Pods for
 * `spec.replicas`; new Pods turn ready `readyDelayMs` after the write that created them
 * (evaluated lazily on each request: no timers), unless the Deployment is held not ready.
 * A template change (a restart annotation) rolls out a new pod-template-hash: with
 * RollingUpdate the old ready Pods stay until the new ones are ready, with Recreate they go
 * at once. `status` is written (bumping resourceVersion) as the real controller writes it,
 * zero counts omitted, conditions Available/Progressing, ProgressDeadlineExceeded when stuck.
 */
import { createHash } from 'node:crypto'
import { deepEqual, isObject, type JsonObject } from './merge.ts'
import { renderPod, type SimPod } from './pods.ts'
import { findByName, type ResourceType } from './resources.ts'
import { metadataOf, randomSuffix, type StoredEntry } from './store.ts'
import { writeStatus, type WriteContext } from './write-path.ts'

interface Rollout { uid: string, namespace: string, name: string, hash: string, template: JsonObject, desired: number, pods: SimPod[], pendingSince: number, failure: string | undefined }

const HASH_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789'
const seconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z')

export function templateHash (template: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(template ?? {})).digest()
  return [...digest.subarray(0, 10)].map((b) => HASH_ALPHABET[b % HASH_ALPHABET.length]).join('')
}

function maxUnavailable (spec: JsonObject, desired: number): number {
  const strategy = isObject(spec.strategy) ? spec.strategy : {}
  if (strategy.type === 'Recreate') return 0
  const value = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate.maxUnavailable ?? '25%' : '25%'
  return typeof value === 'number' ? value : Math.floor(desired * Number(String(value).replace('%', '')) / 100)
}

export class DeploymentController {
  readonly #ctx: WriteContext
  readonly #readyDelayMs: number
  readonly #type: ResourceType = findByName('Deployment')
  readonly #rollouts = new Map<string, Rollout>()
  readonly #holds = new Map<string, string>()
  #podCounter = 0
  /** Pod admission (the ResourceQuota check): a refusal message, or undefined to create the pod. */
  refusePod: ((namespace: string, template: JsonObject, podPrefix: string) => string | undefined) | undefined
  /** The readiness probe, run on every tick once the delay has passed: false turns the Pods not ready (again). */
  probe: ((namespace: string, template: JsonObject) => boolean) | undefined

  constructor (ctx: WriteContext, readyDelayMs: number) {
    this.#ctx = ctx
    this.#readyDelayMs = readyDelayMs
    ctx.store.onChange((type, before, after) => { if (type.kind === 'Deployment') this.#observe(before, after) })
  }

  #observe (before: StoredEntry | undefined, after: StoredEntry | undefined): void {
    const meta = metadataOf((after ?? before)?.object ?? {})
    const key = `${String(meta.namespace)}/${String(meta.name)}`
    if (after === undefined) { this.#rollouts.delete(key); return }
    if (before !== undefined && metadataOf(before.object).uid === meta.uid && deepEqual(before.object.spec, after.object.spec)) return
    const spec = isObject(after.object.spec) ? after.object.spec : {}
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1
    const hash = templateHash(spec.template)
    const now = this.#ctx.now().getTime()
    let rollout = this.#rollouts.get(key)
    if (rollout === undefined || rollout.uid !== meta.uid) {
      rollout = { uid: String(meta.uid), namespace: String(meta.namespace), name: String(meta.name), hash: '', template: {}, desired, pods: [], pendingSince: now, failure: undefined }
      this.#rollouts.set(key, rollout)
    }
    rollout.desired = desired
    if (rollout.hash !== hash) {
      const recreate = isObject(spec.strategy) && spec.strategy.type === 'Recreate'
      rollout.pods = recreate || desired === 0 ? [] : rollout.pods.filter((p) => p.ready)
      Object.assign(rollout, { hash, template: isObject(spec.template) ? spec.template : {}, pendingSince: now })
    }
    const current = rollout.pods.filter((p) => p.hash === hash)
    if (desired < current.length) {
      const doomed = new Set([...current].sort((a, b) => Number(a.ready) - Number(b.ready)).slice(0, current.length - desired))
      rollout.pods = rollout.pods.filter((p) => !doomed.has(p) && (desired > 0 || p.hash === hash))
    }
    this.#createMissingPods(rollout, now)
  }

  /** The ReplicaSet's job: create pods up to `desired`, each through quota admission. */
  #createMissingPods (rollout: Rollout, now: number): void {
    rollout.failure = undefined
    while (rollout.pods.filter((p) => p.hash === rollout.hash).length < rollout.desired) {
      rollout.failure = this.refusePod?.(rollout.namespace, rollout.template, `${rollout.name}-${rollout.hash}-`)
      if (rollout.failure !== undefined) return
      rollout.pods.push(this.#newPod(rollout.namespace, rollout.name, rollout.hash, rollout.template, now))
      rollout.pendingSince = now
    }
  }

  #newPod (namespace: string, deployment: string, hash: string, template: JsonObject, now: number): SimPod {
    this.#podCounter++
    return {
      name: `${deployment}-${hash}-${randomSuffix()}`, uid: this.#ctx.store.newUid(), namespace, deployment, hash, template,
      ready: false, failing: undefined, createdAt: seconds(now), resourceVersion: this.#ctx.store.nextResourceVersion(),
      ip: `10.244.${Math.floor(this.#podCounter / 250) % 250}.${(this.#podCounter % 250) + 2}`
    }
  }

  /** Advances every rollout to `now` and writes the statuses that changed. */
  tick (): void {
    const now = this.#ctx.now().getTime()
    for (const [key, rollout] of this.#rollouts) {
      const [namespace = '', name = ''] = key.split('/')
      const hold = this.#holds.get(key)
      this.#createMissingPods(rollout, now)
      const fresh = rollout.pods.filter((p) => p.hash === rollout.hash)
      for (const pod of fresh) {
        const failing = pod.ready ? undefined : hold
        if (pod.failing !== failing) Object.assign(pod, { failing, resourceVersion: this.#ctx.store.nextResourceVersion() })
      }
      if (hold === undefined && now >= rollout.pendingSince + this.#readyDelayMs) this.#complete(rollout)
      const entry = this.#ctx.store.get(this.#type, namespace, name)
      if (entry !== undefined) writeStatus(this.#ctx, entry, this.#status(entry, rollout, now), 'kube-controller-manager')
    }
  }

  #complete (rollout: Rollout): void {
    const ready = this.probe?.(rollout.namespace, rollout.template) ?? true
    for (const pod of rollout.pods) {
      if (pod.hash === rollout.hash && (pod.ready !== ready || pod.unready !== !ready)) Object.assign(pod, { ready, unready: !ready, failing: undefined, resourceVersion: this.#ctx.store.nextResourceVersion() })
    }
    if (ready) rollout.pods = rollout.pods.filter((p) => p.hash === rollout.hash)
  }

  #status (entry: StoredEntry, rollout: Rollout, now: number): JsonObject {
    const spec = isObject(entry.object.spec) ? entry.object.spec : {}
    const desired = typeof spec.replicas === 'number' ? spec.replicas : 1
    const replicas = rollout.pods.length
    const updated = rollout.pods.filter((p) => p.hash === rollout.hash).length
    const ready = rollout.pods.filter((p) => p.ready).length
    const complete = updated === desired && replicas === desired && ready === desired
    const rs = `ReplicaSet "${String(metadataOf(entry.object).name)}-${rollout.hash}"`
    const deadline = (typeof spec.progressDeadlineSeconds === 'number' ? spec.progressDeadlineSeconds : 600) * 1000
    const available = ready >= desired - maxUnavailable(spec, desired)
    const progressing: [string, string, string] = complete
      ? ['True', 'NewReplicaSetAvailable', `${rs} has successfully progressed.`]
      : now - rollout.pendingSince > deadline
        ? ['False', 'ProgressDeadlineExceeded', `${rs} has timed out progressing.`]
        : ['True', 'ReplicaSetUpdated', `${rs} is progressing.`]
    const previous = isObject(entry.object.status) && Array.isArray(entry.object.status.conditions) ? entry.object.status.conditions.filter(isObject) : []
    const condition = (type: string, status: string, reason: string, message: string): JsonObject => {
      const old = previous.find((c) => c.type === type)
      const same = old !== undefined && old.status === status && old.reason === reason && old.message === message
      const transitioned = old === undefined || old.status !== status
      return { type, status, lastUpdateTime: same ? old.lastUpdateTime ?? null : seconds(now), lastTransitionTime: transitioned ? seconds(now) : old.lastTransitionTime ?? null, reason, message }
    }
    const failed = rollout.failure === undefined ? [] : [condition('ReplicaFailure', 'True', 'FailedCreate', rollout.failure)]
    const counts: JsonObject = { replicas, updatedReplicas: updated, readyReplicas: ready, availableReplicas: ready, unavailableReplicas: Math.max(0, replicas - ready) }
    return {
      observedGeneration: metadataOf(entry.object).generation ?? 1,
      ...Object.fromEntries(Object.entries(counts).filter(([, v]) => v !== 0)),
      conditions: [
        available
          ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
          : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
        condition('Progressing', ...progressing),
        ...failed
      ]
    }
  }

  hold (namespace: string, name: string, reason = 'CrashLoopBackOff'): void { this.#holds.set(`${namespace}/${name}`, reason) }

  release (namespace: string, name: string): void { this.#holds.delete(`${namespace}/${name}`) }

  /** Releases any hold and makes the current rollout's Pods ready now, whatever the delay (if the readiness probe passes). */
  setReady (namespace: string, name: string): void {
    this.release(namespace, name)
    const rollout = this.#rollouts.get(`${namespace}/${name}`)
    if (rollout === undefined) throw new Error(`fake kube-apiserver: no Deployment ${namespace}/${name}`)
    this.#complete(rollout)
    this.tick()
  }

  pods (namespace?: string): SimPod[] {
    return [...this.#rollouts.values()].flatMap((r) => r.pods).filter((p) => namespace === undefined || p.namespace === namespace)
  }

  renderedPods (namespace?: string): JsonObject[] {
    return this.pods(namespace).map(renderPod)
  }
}
